import { parseArgs } from 'node:util';
import { createKnex, isAppError, loadConfig, randomSecret } from '@relay/shared';
import { migrateToLatest } from '@relay/ledger';
import { bootstrapPlatformAdmin } from './domain/accounts';

/**
 * `npm run accounts:bootstrap -- --email admin@example.com --name "Ada Admin"`: creates the first
 * platform admin. The password comes from BOOTSTRAP_PASSWORD, or is generated and printed once
 * (here only: the person signs in with it and enrols the second factor at first sign-in).
 */
/** The command's answer goes to standard output (diagnostics to standard error). */
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email || !values.name) {
    console.error('usage: npm run accounts:bootstrap -- --email <email> --name <display name>  (password: BOOTSTRAP_PASSWORD, else generated)');
    return 2;
  }
  const config = loadConfig();
  await migrateToLatest(config.DATABASE_URL);
  const db = createKnex(config.DATABASE_URL, 2, 'relay-accounts-bootstrap');
  const generated = !process.env.BOOTSTRAP_PASSWORD;
  const password = process.env.BOOTSTRAP_PASSWORD ?? `${randomSecret(18)}`;
  try {
    const account = await bootstrapPlatformAdmin(db, { email: values.email, displayName: values.name, password });
    say(`Platform admin ${account.email} created (account ${account.accountId}).`);
    if (generated) say(`Password (shown only now): ${password}`);
    say('Sign in at /backoffice/v1/auth/sign-in; the first sign-in enrols an authenticator app.');
    return 0;
  } catch (err) {
    if (isAppError(err)) {
      console.error(`${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`accounts:bootstrap failed: ${err.message}`);
    process.exit(1);
  },
);
