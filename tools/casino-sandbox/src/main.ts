import { parseArgs } from 'node:util';
import { parseSandboxBreaks, SANDBOX_BREAKS } from './breaks';
import { startCasinoSandbox } from './sandbox';

/**
 * `node tools/casino-sandbox/dist/main.js`: a casino wallet for the demo and manual tests.
 * SANDBOX_PORT (8090), SANDBOX_HOST (127.0.0.1), SANDBOX_WALLET_SECRET (unset: signatures are
 * not checked until a secret is set through POST /_control/secrets).
 * SANDBOX_BREAK or `--break a,b` (repeatable): protocol rules to break on purpose (breaks.ts), to
 * see the certification kit catch them; `--list-breaks` prints them.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { break: { type: 'string', multiple: true }, 'list-breaks': { type: 'boolean' } } });
  if (values['list-breaks']) {
    for (const [name, what] of Object.entries(SANDBOX_BREAKS)) console.log(`${name.padEnd(24)} ${what}`);
    return;
  }
  const breaks = parseSandboxBreaks([process.env.SANDBOX_BREAK ?? '', ...(values.break ?? [])].join(','));
  const port = Number(process.env.SANDBOX_PORT ?? 8090);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`SANDBOX_PORT is not a port: ${process.env.SANDBOX_PORT}`);
  const sandbox = await startCasinoSandbox({
    port,
    host: process.env.SANDBOX_HOST ?? '127.0.0.1',
    walletSecret: process.env.SANDBOX_WALLET_SECRET || undefined,
    breaks,
    // One JSON line per wallet call; the call record never holds the walletToken.
    // SANDBOX_QUIET=1 (benchmarks) keeps the process from spending its time printing.
    onCall: process.env.SANDBOX_QUIET === '1' ? undefined : (record) => console.log(JSON.stringify({ msg: 'wallet call', ...record })),
  });
  console.log(JSON.stringify({ msg: 'casino sandbox listening', url: sandbox.url, walletUrl: sandbox.walletUrl, ...(breaks.length > 0 ? { breaks } : {}) }));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ msg: 'casino sandbox stopping', signal }));
    sandbox.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error('casino sandbox failed to start:', err);
  process.exit(1);
});
