import { summarizeStatement } from './sql-summary';

describe('statement summary for span names', () => {
  it.each([
    ['select "id", "status" from "transactions" where "provider_id" = $1 limit $2', 'SELECT transactions', 'SELECT', 'transactions'],
    ['insert into "rounds" ("id") values ($1)', 'INSERT rounds', 'INSERT', 'rounds'],
    ["update transactions set status = 'SUCCESS' where id = $1", 'UPDATE transactions', 'UPDATE', 'transactions'],
    ['delete from "launch_token_uses" where "expires_at" < now()', 'DELETE launch_token_uses', 'DELETE', 'launch_token_uses'],
    ['BEGIN', 'BEGIN', 'BEGIN', undefined],
    ['select 1', 'SELECT', 'SELECT', undefined],
    ['SELECT extract(epoch from (now() - claimed_at)) AS age FROM transactions', 'SELECT transactions', 'SELECT', 'transactions'],
  ])('When the statement is %s, then it is summarized as %s', (sql, summary, operation, collection) => {
    expect(summarizeStatement(sql)).toEqual({ summary, operation, ...(collection ? { collection } : {}) });
  });

  it('When a claim is written as a CTE, then the summary names both inserts, not WITH, and no CTE name', () => {
    const sql = `
      WITH claimed AS (
        INSERT INTO transactions (id, status) VALUES (?, 'PENDING')
        ON CONFLICT (provider_id, transaction_id) DO UPDATE SET status = 'PENDING'
        -- a comment naming UPDATE rounds
        WHERE transactions.status = 'FAILED'
        RETURNING id, attempt
      )
      INSERT INTO transaction_attempts (transaction_pk, attempt, request, started_at)
      SELECT id, attempt, ?::json, now() FROM claimed
      RETURNING transaction_pk AS pk, attempt`;
    expect(summarizeStatement(sql)).toEqual({ summary: 'INSERT transactions INSERT transaction_attempts', operation: 'INSERT' });
  });

  it('When a statement reads and writes several tables, then the summary keeps their order and at most four parts', () => {
    const sql = `WITH tx AS (UPDATE transactions SET status = 'SUCCESS' WHERE id = ? RETURNING id),
      settling AS (SELECT c.id, (SELECT a.request FROM transaction_attempts a WHERE a.transaction_pk = c.id) FROM transactions c WHERE c.id = (SELECT id FROM tx) FOR UPDATE OF c),
      opened AS (INSERT INTO rounds (id) SELECT ? FROM settling RETURNING id)
      SELECT (SELECT count(*) FROM opened) AS opened, (SELECT count(*) FROM sessions) AS s, (SELECT 1 FROM games) AS g`;
    expect(summarizeStatement(sql).summary).toBe('UPDATE transactions SELECT transaction_attempts SELECT transactions INSERT rounds');
  });
});
