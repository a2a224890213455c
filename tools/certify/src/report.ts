import Table from 'cli-table3';
import { create } from 'xmlbuilder2';
import type { Report } from './certify';

/** The three ways a run is reported: a table for people, JSON for scripts, JUnit XML for CI. */
export function reportTable(report: Report, width = 150): string {
  // Six columns sharing the width; sent, received and why get the room.
  const fixed = [21, 10, 9];
  const rest = Math.max(60, width - fixed.reduce((a, b) => a + b, 0) - 7);
  const table = new Table({
    head: ['check', 'kind', 'result', 'sent', 'received', 'why it matters'],
    colWidths: [...fixed, Math.floor(rest * 0.3), Math.floor(rest * 0.35), Math.floor(rest * 0.35)],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const c of report.checks) {
    table.push([c.id, c.required ? 'required' : 'advisory', c.status.toUpperCase(), c.sent, [c.detail, c.received].filter(Boolean).join('\n'), c.why]);
  }
  return `${table.toString()}\n${summary(report)}\n`;
}

export function summary(report: Report): string {
  const required = report.checks.filter((c) => c.required);
  const count = (list: typeof required, status: string) => list.filter((c) => c.status === status).length;
  const advisory = report.checks.filter((c) => !c.required);
  const balances = report.balances.map((b) => `${b.player} ${b.before} -> ${b.after}${b.restored ? '' : ' (NOT restored)'}`).join(', ');
  return [
    `required: ${count(required, 'pass')} passed, ${count(required, 'fail')} failed, ${count(required, 'skipped')} skipped; ` +
      `advisory: ${count(advisory, 'pass')} passed, ${count(advisory, 'fail')} failed, ${count(advisory, 'skipped')} skipped`,
    `balances: ${balances || 'none read'}`,
    `run ${report.runId} (transactionIds start with it), ${(report.durationMs / 1000).toFixed(1)} s`,
    report.exitCode === 0 ? 'CERTIFIED: every required check passed' : 'NOT CERTIFIED: a required check failed',
  ].join('\n');
}

export function reportJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * One testcase per check. An advisory check that fails is reported as passed with its finding in
 * system-out, so a CI job's result agrees with the kit's exit status.
 */
export function reportJunit(report: Report): string {
  const failures = report.checks.filter((c) => c.required && c.status === 'fail').length;
  const skipped = report.checks.filter((c) => c.status === 'skipped').length;
  const seconds = (report.durationMs / 1000).toFixed(3);
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const suites = doc.ele('testsuites', { name: 'relay-certify', tests: report.checks.length, failures, errors: 0, skipped, time: seconds });
  const suite = suites.ele('testsuite', { name: `casino wallet ${report.providerId}`, tests: report.checks.length, failures, errors: 0, skipped, time: seconds, timestamp: report.startedAt });
  for (const c of report.checks) {
    const testcase = suite.ele('testcase', { name: c.id, classname: `relay-certify.${c.required ? 'required' : 'advisory'}` });
    const text = [`sent: ${c.sent}`, `received: ${c.received}`, `why: ${c.why}`].join('\n');
    if (c.status === 'skipped') testcase.ele('skipped', { message: c.detail });
    else if (c.status === 'fail' && c.required) testcase.ele('failure', { message: c.detail, type: 'CheckFailed' }).txt(text);
    else testcase.ele('system-out').txt(`${c.required ? '' : `advisory ${c.status}: `}${c.detail}\n${text}`);
  }
  return doc.end({ prettyPrint: true });
}
