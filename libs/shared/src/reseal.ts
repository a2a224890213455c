import type { Knex } from 'knex';
import type { SecretBox } from './crypto';

/** Every column holding a sealed value, by table and primary key. */
const SEALED_COLUMNS: { table: string; key: string; columns: string[] }[] = [
  { table: 'casinos', key: 'provider_id', columns: ['wallet_secret_enc', 'launch_key_enc'] },
  { table: 'sessions', key: 'session_id', columns: ['wallet_token_enc'] },
];

export interface ResealReport {
  table: string;
  column: string;
  scanned: number;
  resealed: number;
  /** Values no key opens, left as they are (counted only: a session id is itself a secret). */
  unreadable: number;
}

/**
 * Re-seals every stored secret under the box's current key (the second step of rotating
 * DATA_ENCRYPTION_KEY, docs/runbooks/rotating-secrets.md). A value already sealed with the current
 * key is left alone, so running it twice is harmless. Each row is updated only if its value has
 * not changed meanwhile (a concurrent write sealed with the current key already). The plaintext
 * never leaves this function and is never logged.
 */
export async function resealStoredSecrets(db: Knex, box: SecretBox, options: { batchSize?: number } = {}): Promise<ResealReport[]> {
  const batchSize = options.batchSize ?? 500;
  const reports: ResealReport[] = [];
  for (const { table, key, columns } of SEALED_COLUMNS) {
    const perColumn = new Map(columns.map((c) => [c, { table, column: c, scanned: 0, resealed: 0, unreadable: 0 }]));
    let after: string | null = null;
    for (;;) {
      const query = db(table).select(key, ...columns).orderBy(key).limit(batchSize);
      if (after !== null) query.where(key, '>', after);
      const rows = (await query) as Record<string, string>[];
      if (rows.length === 0) break;
      for (const row of rows) {
        for (const column of columns) {
          const report = perColumn.get(column)!;
          report.scanned++;
          const sealed = row[column];
          let current: boolean;
          try {
            current = box.sealedWithCurrentKey(sealed);
          } catch {
            report.unreadable++;
            continue;
          }
          if (current) continue;
          const updated = await db(table).where({ [key]: row[key], [column]: sealed }).update({ [column]: box.seal(box.open(sealed)) });
          report.resealed += updated;
        }
      }
      after = rows[rows.length - 1][key];
    }
    reports.push(...perColumn.values());
  }
  return reports;
}
