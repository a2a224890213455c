import { ConfigError, DEV_SECRETS, loadConfig, PROCESS_SECRETS, type ProcessName } from './config';

describe('configuration', () => {
  it('When nothing is set, then every variable has its documented local default', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/relay',
      reportingDatabaseUrl: 'postgres://postgres@127.0.0.1:5432/relay_reporting',
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      GATEWAY_PORT: 8080,
      LAUNCHER_PORT: 8081,
      ADMIN_PORT: 8085,
      SESSION_TTL_SECONDS: 86400,
      SESSION_ARCHIVE_DAYS: 60,
      IN_FLIGHT_WINDOW_SECONDS: 60,
      CASINO_TIMEOUT_MS: 10000,
      RATE_LIMIT_PER_SECOND: 5000,
      LOG_LEVEL: 'info',
    });
    expect(c.serviceUrls.wallet).toBe('http://127.0.0.1:8082');
  });

  // Issue 36, finding 14: ADMIN_TOKEN_PREVIOUS could be one character.
  it('When the previous admin token of a rotation is shorter than an admin token may be, then it is refused by name', () => {
    expect(() => loadConfig({ ADMIN_TOKEN_PREVIOUS: 'x' })).toThrow('ADMIN_TOKEN_PREVIOUS');
    expect(() => loadConfig({ ADMIN_TOKEN_PREVIOUS: 'fifteen-chars-x' })).toThrow('ADMIN_TOKEN_PREVIOUS');
    expect(loadConfig({ ADMIN_TOKEN_PREVIOUS: 'sixteen-chars-xx' }).ADMIN_TOKEN_PREVIOUS).toBe('sixteen-chars-xx');
    expect(loadConfig({ ADMIN_TOKEN_PREVIOUS: '' }).ADMIN_TOKEN_PREVIOUS).toBeUndefined();
  });

  it('When production runs with any default secret, then it refuses to start and names the variable', () => {
    const strong = { ADMIN_TOKEN: 'a'.repeat(40), INTERNAL_AUTH_SECRET: 'b'.repeat(40), DATA_ENCRYPTION_KEY: 'c'.repeat(40) };
    expect(() => loadConfig({ NODE_ENV: 'production', ...strong })).not.toThrow();
    for (const name of Object.keys(DEV_SECRETS)) {
      const env = { NODE_ENV: 'production', ...strong, [name]: undefined };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    }
  });

  it.each(Object.entries(PROCESS_SECRETS))('When %s starts in production with only the secrets it uses, then it loads; without one of them it refuses', (processName, used) => {
    const values = { ADMIN_TOKEN: 'a'.repeat(40), INTERNAL_AUTH_SECRET: 'b'.repeat(40), DATA_ENCRYPTION_KEY: 'c'.repeat(40) };
    const only = Object.fromEntries(used.map((name) => [name, values[name]]));
    const c = loadConfig({ NODE_ENV: 'production', ...only }, { process: processName as ProcessName });
    for (const name of Object.keys(DEV_SECRETS) as (keyof typeof DEV_SECRETS)[]) {
      // A secret it does not use is never the development default: a random value that fails closed.
      expect(c[name]).not.toBe(DEV_SECRETS[name]);
      if (used.includes(name)) expect(c[name]).toBe(values[name]);
      else expect(c[name]).toMatch(/^unused-[0-9a-f]{64}$/);
    }
    for (const name of used) {
      expect(() => loadConfig({ NODE_ENV: 'production', ...only, [name]: undefined }, { process: processName as ProcessName })).toThrow(name);
    }
  });

  it('When a value is malformed, then loading fails fast with every problem named', () => {
    expect(() => loadConfig({ GATEWAY_PORT: 'eighty', CASINO_TIMEOUT_MS: '-1' })).toThrow(/GATEWAY_PORT.*CASINO_TIMEOUT_MS|CASINO_TIMEOUT_MS.*GATEWAY_PORT/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
  });

  it('When the back office is configured, then its defaults hold and an idle time-out past the lifetime is refused', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ BACKOFFICE_PORT: 8087, BACKOFFICE_SESSION_IDLE_SECONDS: 1800, BACKOFFICE_SESSION_MAX_SECONDS: 43200, BACKOFFICE_INSECURE_COOKIE: false, SIGNIN_LOCKOUT_SECONDS: 900 });
    expect(c.serviceUrls.backoffice).toBe('http://127.0.0.1:8087');
    expect(loadConfig({ BACKOFFICE_INSECURE_COOKIE: '1' }).BACKOFFICE_INSECURE_COOKIE).toBe(true);
    expect(() => loadConfig({ BACKOFFICE_SESSION_IDLE_SECONDS: '100', BACKOFFICE_SESSION_MAX_SECONDS: '50' })).toThrow(/BACKOFFICE_SESSION_IDLE_SECONDS/);
    expect(() => loadConfig({ BACKOFFICE_INSECURE_COOKIE: 'yes' })).toThrow(/BACKOFFICE_INSECURE_COOKIE/);
  });

  it('When the reporting database is set, then reporting reads go there and writes stay on the money database', () => {
    const c = loadConfig({ REPORTING_DATABASE_URL: 'postgres://reader@reporting:5432/relay_reports' });
    expect(c.reportingDatabaseUrl).toBe('postgres://reader@reporting:5432/relay_reports');
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/relay');
  });

  it('When only the money database is set, then the reporting database is its name plus _reporting on the same server, options kept', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://relay:pw@db.internal:6432/money?sslmode=require' });
    expect(c.reportingDatabaseUrl).toBe('postgres://relay:pw@db.internal:6432/money_reporting?sslmode=require');
  });

  it('When the retired DATABASE_READ_URL is still set, then it is ignored', () => {
    const c = loadConfig({ DATABASE_READ_URL: 'postgres://reader@replica:5432/relay' });
    expect(c.reportingDatabaseUrl).toBe('postgres://postgres@127.0.0.1:5432/relay_reporting');
    expect(JSON.stringify(c)).not.toContain('replica');
  });

  it('When the in-flight window is not longer than the casino time-out, then the configuration is refused', () => {
    expect(() => loadConfig({ IN_FLIGHT_WINDOW_SECONDS: '10', CASINO_TIMEOUT_MS: '10000' })).toThrow(/IN_FLIGHT_WINDOW_SECONDS/);
    expect(() => loadConfig({ IN_FLIGHT_WINDOW_SECONDS: '11', CASINO_TIMEOUT_MS: '10000' })).not.toThrow();
  });
});
