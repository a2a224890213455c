import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { certifyCasino } from './certify';
import { loadConfig, SetupError } from './config';
import { reportJson, reportJunit, reportTable } from './report';

/**
 * `relay-certify casino --config FILE [--json FILE] [--junit FILE]`
 * Exit status: 0 every required check passed, 1 a required check failed, 2 bad usage or config,
 * or a wallet that cannot be reached at all.
 */
export const USAGE = 'usage: relay-certify casino --config FILE [--json FILE] [--junit FILE]';

export interface Output {
  write(text: string): unknown;
}

export async function main(argv: string[], out: Output = process.stdout, err: Output = process.stderr): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (e) {
    err.write(`relay-certify: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  if (args.positionals.length !== 1 || args.positionals[0] !== 'casino' || !args.values.config) {
    err.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const config = await loadConfig(fromCaller(args.values.config));
    const report = await certifyCasino(config, { onCheck: (c) => err.write(`${c.status.padEnd(7)} ${c.id}\n`) });
    out.write(reportTable(report, Math.max(120, (process.stdout as { columns?: number }).columns ?? 150)));
    if (args.values.json) await writeFile(fromCaller(args.values.json), reportJson(report));
    if (args.values.junit) await writeFile(fromCaller(args.values.junit), reportJunit(report));
    return report.exitCode;
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    err.write(`relay-certify: ${e.message}\n`);
    return 2;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { config: { type: 'string' }, json: { type: 'string' }, junit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}

/** `npm run` moves to the repository root; a relative path means the directory the caller ran it from. */
function fromCaller(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}
