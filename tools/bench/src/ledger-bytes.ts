import type pg from 'pg';

/**
 * Bytes per transaction on the primary: heap (with TOAST) and indexes of every money table,
 * summed over the partitions of a partitioned one, divided by the number of transactions.
 * The key tables hold the idempotency uniqueness; count tables (`ledger_counts_*`, on the reporting database)
 * are what exact totals cost. Read-only: catalog sizes and one count.
 */

export interface TableBytes {
  table: string;
  heap: number;
  indexes: number;
}

export interface LedgerBytes {
  transactions: number;
  tables: TableBytes[];
}

const MONEY_TABLES = ['transactions', 'transaction_attempts', 'rounds', 'transaction_keys', 'round_keys'];

export async function ledgerBytes(client: pg.Client): Promise<LedgerBytes> {
  const rollups = await client.query(`
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND c.relname LIKE 'ledger\\_counts\\_%'
    ORDER BY c.relname`);
  const names = [...MONEY_TABLES, ...rollups.rows.map((r: { relname: string }) => r.relname)];
  const tables: TableBytes[] = [];
  for (const table of names) {
    // pg_partition_tree lists nothing for a plain table: the table itself is then the only leaf.
    const size = await client.query(
      `WITH leaves AS (SELECT relid FROM pg_partition_tree(to_regclass($1)) WHERE isleaf
                       UNION SELECT to_regclass($1) WHERE (SELECT relkind FROM pg_class WHERE oid = to_regclass($1)) = 'r')
       SELECT coalesce(sum(pg_table_size(relid)), 0)::bigint AS heap, coalesce(sum(pg_indexes_size(relid)), 0)::bigint AS indexes FROM leaves`,
      [`public.${table}`],
    );
    if (size.rows[0] && (Number(size.rows[0].heap) > 0 || Number(size.rows[0].indexes) > 0 || MONEY_TABLES.includes(table))) {
      tables.push({ table, heap: Number(size.rows[0].heap), indexes: Number(size.rows[0].indexes) });
    }
  }
  // The seed's own count: count(*) over 30M rows would cost more than the whole report.
  const info = await client.query(`SELECT transactions FROM bench_seed_info`).catch(() => null);
  const transactions = Number(info?.rows[0]?.transactions ?? (await client.query(`SELECT count(*) AS n FROM transactions`)).rows[0].n);
  return { transactions, tables };
}

const MiB = 2 ** 20;

/**
 * The previous layout (one heap per table, before migration 007), as recorded in BENCHMARKS.md
 * by the reporting benchmark at 5,000,000 transactions: rounds and transactions only.
 */
export const BEFORE: LedgerBytes = {
  transactions: 5_000_000,
  tables: [
    { table: 'rounds', heap: 693 * MiB, indexes: 1184 * MiB },
    { table: 'transactions', heap: 1169 * MiB, indexes: 2616 * MiB },
  ],
};

export function bytesReport(measured: { label: string; bytes: LedgerBytes }[]): string {
  const columns: { label: string; bytes: LedgerBytes }[] = [{ label: 'before (previous layout, 5M, recorded)', bytes: BEFORE }, ...measured];
  const tables = [...new Set(columns.flatMap((c) => c.bytes.tables.map((t) => t.table)))];
  const perTx = (b: LedgerBytes, t?: TableBytes) => (t ? Math.round((t.heap + t.indexes) / b.transactions) : undefined);
  const mb = (n: number) => (n / MiB).toFixed(0);
  const cell = (c: { bytes: LedgerBytes }, table: string) => {
    const t = c.bytes.tables.find((x) => x.table === table);
    return t ? `${perTx(c.bytes, t)} (${mb(t.heap)} + ${mb(t.indexes)} MB)` : 'n/a';
  };
  const total = (b: LedgerBytes) => b.tables.reduce((sum, t) => sum + t.heap + t.indexes, 0);
  return [
    '## Bytes per transaction',
    '',
    'Heap (with TOAST) plus indexes of each money table on the primary, summed over its partitions, divided by the',
    'number of transactions of the data set (tools/bench/src/ledger-bytes.ts); in brackets heap + indexes in MB (MiB).',
    'Key tables hold the idempotency uniqueness since migration 007; count tables are `ledger_counts_*` (libs/ledger/src/schema/counts.ts).',
    '"before" is the previous layout as recorded by the reporting benchmark at 5M transactions (rounds and transactions',
    'only; the previous layout had no key tables, and its transaction_attempts were not recorded).',
    '',
    `| table | ${columns.map((c) => c.label).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...tables.map((table) => `| ${table} | ${columns.map((c) => cell(c, table)).join(' | ')} |`),
    `| **all of the above** | ${columns.map((c) => `**${Math.round(total(c.bytes) / c.bytes.transactions)}** (${mb(total(c.bytes))} MB)`).join(' | ')} |`,
    `| rounds and transactions only | ${columns
      .map((c) => {
        const both = c.bytes.tables.filter((t) => t.table === 'rounds' || t.table === 'transactions').reduce((s, t) => s + t.heap + t.indexes, 0);
        return String(Math.round(both / c.bytes.transactions));
      })
      .join(' | ')} |`,
  ].join('\n');
}
