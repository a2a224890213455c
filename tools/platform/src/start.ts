import { loadConfig } from '@relay/shared';
import { prepareDatabases } from '@relay/ledger';
import { Supervisor } from './supervisor';

/** `npm start`: validate config, run pending migrations, then run every service in the foreground. */
async function main(): Promise<void> {
  const log = (msg: string, fields: Record<string, unknown> = {}, level = 'info') =>
    console.error(JSON.stringify({ level, service: 'platform', time: new Date().toISOString(), ...fields, msg }));
  const config = loadConfig();
  // Fails at once, naming wal_level, when the server cannot publish to the reporting database.
  const prepared = await prepareDatabases(config.DATABASE_URL, config.reportingDatabaseUrl, { log: (msg, fields) => log(msg, fields) });
  log(prepared.money.length ? `applied migrations: ${prepared.money.join(', ')}` : 'database schema is up to date');
  if (prepared.reporting.length) log(`reporting database migrations applied: ${prepared.reporting.join(', ')}`);
  if (prepared.subscription === 'created') log('reporting database subscribed to the money database');
  const supervisor = new Supervisor(process.env, (msg, fields) => log(msg, fields, fields ? 'warn' : 'info'));
  supervisor.start();
  log(`platform starting; gateway on port ${config.GATEWAY_PORT}`);
  const stop = (signal: string) => {
    log(`${signal} received; stopping every service`);
    void supervisor.stop().then((code) => process.exit(code));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: Error) => {
  console.error(JSON.stringify({ level: 'fatal', service: 'platform', msg: err.message }));
  process.exit(1);
});
