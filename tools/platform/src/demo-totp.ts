import { readAccounts, totpCode, ACCOUNTS_FILE } from './demo-accounts';

/**
 * `npm run demo:totp`: the current TOTP code of each demo console account (what an authenticator
 * app would show), or of the base32 secret given as the argument. Demo use only.
 */
function main(): void {
  const secret = process.argv[2];
  if (secret) {
    console.log(totpCode(secret.replace(/\s+/g, '').toUpperCase()));
    return;
  }
  const accounts = readAccounts();
  if (accounts.length === 0) {
    console.error(`No demo accounts in ${ACCOUNTS_FILE}: run npm run demo first, or pass a base32 secret.`);
    process.exit(1);
  }
  const left = 30 - (Math.floor(Date.now() / 1000) % 30);
  for (const a of accounts) console.log(`${totpCode(a.totpSecret)}  ${a.email}`);
  console.log(`(valid for ${left} more seconds; each code signs in once)`);
}

main();
