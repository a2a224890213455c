import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseConfig, reportJunit, reportTable, type Report } from '../src';
import { Kit } from '../src/kit';
import { WalletLine } from '../src/wallet';

/** What a hostile or broken wallet writes must not break the terminal, the XML, or leak a secret. */
const config = parseConfig({
  walletUrl: 'http://127.0.0.1:9/wallet',
  walletSecret: 'report-secret',
  providerId: 'c1',
  currency: 'EUR',
  players: { funded: { playerId: 'p1', walletToken: 'report-token' } },
});

function kit(): Kit {
  return new Kit(config, new WalletLine(config));
}

function report(received: string): Report {
  return {
    runId: 'certify-1',
    providerId: 'c1',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 12,
    balances: [],
    exitCode: 1,
    checks: [{ id: 'debit-applies', required: true, status: 'fail', detail: 'answered balance 1, expected 2', sent: 'a debit', received, why: 'money' }],
  };
}

describe('relay-certify reports', () => {
  it('When a wallet answers with terminal escapes, NUL bytes and line breaks, then the report shows them escaped on one line', () => {
    const shown = kit().describe({ operation: 'debit', status: 500, text: 'oops\u001b[2J\u0000\r\nnext line', ms: 1 });
    expect(shown).toBe('500 oops\\u001b[2J\\u0000 next line');
  });

  it('When a wallet echoes the walletToken or the secret, then the report blanks them', () => {
    const shown = kit().describe({ operation: 'balance', status: 400, text: '{"error":"bad token report-token for report-secret"}', ms: 1 });
    expect(shown).toBe('400 {"error":"bad token [redacted] for [redacted]"}');
  });

  it('When the JUnit file holds a wallet answer, then it is well-formed XML that gives the text back', () => {
    const received = kit().describe({ operation: 'debit', status: 200, text: '<balance>1</balance> & ]]> \u0007', ms: 1 });
    const xml = reportJunit(report(received));
    expect(XMLValidator.validate(xml)).toBe(true);
    // eslint-disable-next-line no-control-regex -- no raw control character may reach the XML
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as { testsuites: { testsuite: { testcase: { failure: { '#text': string; message: string } } } } };
    expect(parsed.testsuites.testsuite.testcase.failure.message).toBe('answered balance 1, expected 2');
    expect(parsed.testsuites.testsuite.testcase.failure['#text']).toContain('received: 200 <balance>1</balance> & ]]> \\u0007');
  });

  it('When the table is printed, then every check is one row with its six columns and the verdict follows', () => {
    const table = reportTable(report('200 {"balance":1}'), 150);
    expect(table).toMatch(/│ debit-applies\s+│ required │ FAIL\s+│ a debit\s+│ answered balance 1, expected 2\s+│ money\s+│/);
    expect(table.trimEnd().split('\n').at(-1)).toBe('NOT CERTIFIED: a required check failed');
  });
});
