import fs from 'node:fs';
import path from 'node:path';

/**
 * The record of what the fault, abuse and isolation suites tried and what survived. Each suite keeps
 * a Tally, writes it to test-output/reliability/<suite>.json when it ends (afterAll), and then
 * regenerates RELIABILITY.md from every JSON file present. No jest globalTeardown is involved: the
 * document is rewritten by whichever suite finishes last, so a partial run documents what ran.
 */
export const ROOT = path.resolve(__dirname, '../../..');
export const REPORT_DIR = path.join(ROOT, 'test-output', 'reliability');
export const RELIABILITY_DOC = path.join(ROOT, 'RELIABILITY.md');

export interface SuiteReport {
  suite: string;
  title: string;
  /** What the suite proves, one paragraph. */
  description: string;
  /** The test file, relative to the repository. */
  file: string;
  startedAt: string;
  finishedAt: string;
  requests: number;
  faults: Record<string, number>;
  checks: Record<string, number>;
  tried: string[];
  survived: string[];
  notes: string[];
}

export class Tally {
  private readonly report: SuiteReport;

  constructor(suite: string, title: string, file: string, description: string) {
    const now = new Date().toISOString();
    this.report = { suite, title, description, file, startedAt: now, finishedAt: now, requests: 0, faults: {}, checks: {}, tried: [], survived: [], notes: [] };
  }

  request(n = 1): void {
    this.report.requests += n;
  }

  fault(kind: string, n = 1): void {
    this.report.faults[kind] = (this.report.faults[kind] ?? 0) + n;
  }

  check(name: string, n = 1): void {
    this.report.checks[name] = (this.report.checks[name] ?? 0) + n;
  }

  note(text: string): void {
    if (!this.report.notes.includes(text)) this.report.notes.push(text);
  }

  tried(scenario: string): void {
    this.report.tried.push(scenario);
  }

  survived(scenario: string): void {
    this.report.survived.push(scenario);
  }

  /** Writes this suite's JSON and regenerates RELIABILITY.md. Never throws: a record must not fail a run. */
  write(): void {
    try {
      this.report.finishedAt = new Date().toISOString();
      fs.mkdirSync(REPORT_DIR, { recursive: true });
      writeAtomically(path.join(REPORT_DIR, `${this.report.suite}.json`), JSON.stringify(this.report, null, 2));
      writeReliabilityDoc();
    } catch (err) {
      console.error('could not write the reliability record', err);
    }
  }
}

/**
 * `it` that records the scenario as tried when it starts and as survived when its body got to the
 * end (every assertion passed).
 */
export function scenarioIt(tally: Tally) {
  return (name: string, fn: () => Promise<void>, timeout?: number): void => {
    it(
      name,
      async () => {
        tally.tried(name);
        await fn();
        tally.survived(name);
      },
      timeout,
    );
  };
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

export function readReports(): SuiteReport[] {
  if (!fs.existsSync(REPORT_DIR)) return [];
  const reports: SuiteReport[] = [];
  for (const name of fs.readdirSync(REPORT_DIR).filter((f) => f.endsWith('.json')).sort()) {
    try {
      reports.push(JSON.parse(fs.readFileSync(path.join(REPORT_DIR, name), 'utf8')) as SuiteReport);
    } catch {
      // a file being replaced right now: the next suite to finish rewrites the document
    }
  }
  const rank = (r: SuiteReport) => (SUITE_ORDER.includes(r.suite) ? SUITE_ORDER.indexOf(r.suite) : SUITE_ORDER.length);
  return reports.sort((a, b) => rank(a) - rank(b) || a.file.localeCompare(b.file));
}

/** The order of the document: faults first, then abuse, isolation and secrets; unknown suites last. */
const SUITE_ORDER = ['casino-faults', 'process-faults', 'randomized', 'postgres-restart', 'redis-restart', 'hostile-money', 'hostile-routes', 'hostile-admin', 'isolation', 'secrets-sweep', 'rate-limit', 'abuse-edge', 'abuse-money'];

export function writeReliabilityDoc(reports: SuiteReport[] = readReports()): void {
  writeAtomically(RELIABILITY_DOC, renderReliabilityDoc(reports));
}

const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);
const list = (values: Record<string, number>) =>
  Object.entries(values)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `\`${k}\` ${v}`)
    .join(', ') || 'none';

export function renderReliabilityDoc(reports: SuiteReport[]): string {
  const newest = Math.max(0, ...reports.map((r) => Date.parse(r.finishedAt)));
  const earlier = (r: SuiteReport) => newest - Date.parse(r.finishedAt) > 6 * 3600_000;
  const lines: string[] = [
    '# Reliability record',
    '',
    'What the fault, abuse and isolation suites (`test/faults`, `test/security`) tried against the running',
    'platform, and what survived. Generated: every suite writes its counts to `test-output/reliability/<suite>.json`',
    'and rewrites this file from all of them when it ends, so `npm test` keeps it current and a partial run shows',
    'what ran. Do not edit by hand.',
    '',
    '## The promises',
    '',
    '- **Ledger agreement.** After any fault and a replay with the same `transactionId`s, every `SUCCESS` transaction',
    '  of the relay matches exactly one movement in the casino\'s journal (same operation, amount, player, round and',
    '  balance), every casino movement has its `SUCCESS` transaction, and no transaction is left `PENDING`: nothing',
    '  applied twice, nothing lost (`checkLedgerAgreement` in `test/faults/support/invariants.ts`).',
    '- **Rounds follow their transactions.** Every round is opened by a `SUCCESS` debit of the same stake; a `SETTLED`',
    '  round names a `SUCCESS` settling credit with the same payout; an `OPEN` round has no settling credit.',
    '- **Hostile input is refused, not crashed on.** Every malformed request gets a 4xx with the code the API reference',
    '  (docs/api) documents, never a 5xx, never a stack trace, and writes nothing.',
    '- **Isolation and secrets.** A game provider never reads or changes another\'s sessions, rounds, transactions, games',
    '  or catalog entries; no wallet token, wallet secret, launch key or provider token appears in any response body',
    '  (other than the one-time answers of the admin API that create them) or log line.',
    '- **Fair share.** The gateway limits requests per game provider token (Redis-backed, configurable per provider),',
    '  so one misbehaving game cannot starve the others.',
    '',
    '## Summary',
    '',
    '| Suite | Finished | Scenarios survived | Requests | Faults injected | Invariant checks |',
    '|---|---|---|---|---|---|',
  ];
  if (reports.length === 0) lines.push('| (no suite has run yet) | | | | | |');
  for (const r of reports) {
    const when = `${r.finishedAt.replace('T', ' ').slice(0, 19)} UTC${earlier(r) ? ' (earlier run)' : ''}`;
    lines.push(`| [${r.title}](#${anchor(r.title)}) | ${when} | ${r.survived.length} of ${r.tried.length} | ${r.requests} | ${sum(r.faults)} | ${sum(r.checks)} |`);
  }
  for (const r of reports) {
    const lost = r.tried.filter((t) => !r.survived.includes(t));
    lines.push('', `## ${r.title}`, '', `\`${r.file}\`. ${r.description}`, '');
    lines.push(`- Requests sent: ${r.requests}`);
    lines.push(`- Faults injected: ${list(r.faults)}`);
    lines.push(`- Invariant checks passed: ${list(r.checks)}`);
    for (const note of r.notes) lines.push(`- ${note}`);
    if (lost.length) lines.push(`- **Did not survive (failed in this run):** ${lost.map((s) => `"${s}"`).join('; ')}`);
    lines.push('', 'Scenarios survived:', '');
    for (const s of r.survived) lines.push(`- ${s}`);
    if (r.survived.length === 0) lines.push('- (none)');
  }
  lines.push(
    '',
    '## Found by these suites',
    '',
    '- Fixed: a valid cash-out or cash-in whose `gameData`, `settlementData` or `meta` was nested some thousands of levels deep',
    '  (20 000 levels fit in 40 KB) answered 500: recording the request overflowed the stack of `JSON.stringify`. The wallet now',
    '  refuses JSON nested deeper than 100 levels with 400 Bad Request (`services/wallet/src/routes/schemas.ts`).',
    '- Fixed: a casino echoing the player\'s wallet token in a successful answer had it stored in clear in the audit text of',
    '  the attempt (`transaction_attempts.casino_body`); failures were already scrubbed. Successes are now scrubbed the same way',
    '  (`services/wallet/src/domain/money-movement.ts`).',
    '- Known, accepted: a URL longer than the HTTP parser accepts (16 KiB of headers) gets Node\'s own `431` without a body.',
    '- Fixed: while PostgreSQL was down, money calls answered `500 INTERNAL_ERROR`, the status a cash-out also uses for',
    '  `CASHOUT_FAILED` ("bet rejected"). An unreachable or restarting PostgreSQL or Redis is now `503 SERVICE_UNAVAILABLE` with',
    '  `Retry-After` (`libs/shared/src/http.ts`): repeat the request. Nothing was lost either way: the repeat with the same',
    '  `transactionId` completes it. While Redis is down money calls keep working; only round-ended answers 503.',
    '',
    '## Covered by other suites (not repeated here)',
    '',
    '- `services/wallet/test/crash.test.ts`: SIGKILL of the wallet process after the casino applied a debit and before it answered;',
    '  the record stays `PENDING`, the repeat inside the in-flight window gets 409, after it one debit completes.',
    '- `services/wallet/test/concurrency.test.ts`: 50 identical cash-outs at once, 50 racing a `FAILED` record, 40 different bets',
    '  of one player: exactly one debit each.',
    '- `services/wallet/test/transaction-states.test.ts` and `money-errors.test.ts`: every row of the spec\'s transaction state table',
    '  and money error table.',
    '- `services/notifier/test/worker-killed.test.ts`: SIGKILL of a notifier worker mid-delivery; the round-ended request never',
    '  answers ok for a delivery nobody completed, and another worker re-runs the job.',
    '- `services/reporting/test/security.test.ts` and `services/gateway/test/gateway.test.ts`: reporting access checks and the',
    '  platform-wide rate limit.',
    '',
    '## Running it',
    '',
    '- `npm test` runs everything: first the parallel phase, then `test/faults/disruptive/` alone (`--runInBand`), because',
    '  restarting PostgreSQL and Redis disturbs every other test on the machine.',
    '- `npx jest test/faults test/security` runs the non-disruptive part; the randomized run prints its seed, and',
    '  `FAULT_SEED=<seed> npx jest test/faults/randomized` replays the same generated scenarios (`FAULT_RUNS` sets how many);',
    '  the hostile-input properties likewise print and take `HOSTILE_SEED` (`HOSTILE_RUNS`).',
    "- `npx jest --runInBand --testMatch '<rootDir>/test/faults/disruptive/**/*.test.ts'` runs the outage tests alone: only",
    '  when nothing else on the machine uses PostgreSQL or Redis.',
    '',
  );
  return lines.join('\n');
}

function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ /g, '-');
}
