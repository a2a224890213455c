/**
 * A low-cardinality summary of a SQL statement for span names (OpenTelemetry's db.query.summary):
 * each operation with the table it works on, in order of first appearance, e.g.
 * `INSERT transactions INSERT transaction_attempts` for a claim written as a CTE, where naming
 * the span by its first word would say only `WITH`. Names of the statement's own CTEs are not
 * tables and are left out; literals and comments are ignored; never any bound value.
 */

const MAX_PARTS = 4;

export interface StatementSummary {
  /** e.g. `SELECT transactions`, `INSERT rounds UPDATE transactions`, `BEGIN`. */
  summary: string;
  /** The first operation (`INSERT`, `SELECT`, `BEGIN`, ...). */
  operation: string;
  /** The table, when the statement works on exactly one. */
  collection?: string;
}

function words(sql: string): string[] {
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  return text.match(/"(?:[^"]|"")+"(?:\."(?:[^"]|"")+"|\.\w+)*|\w+(?:\.\w+)*|[(),;]/g) ?? [];
}

function identifier(word: string | undefined): string | undefined {
  if (!word || /^[(),;]$/.test(word)) return undefined;
  return word.replace(/"/g, '');
}

export function summarizeStatement(sql: string): StatementSummary {
  const tokens = words(sql);
  const upper = tokens.map((t) => t.toUpperCase());
  const ctes = new Set<string>();
  // CTE names: `WITH [RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (` and `, name AS (`.
  for (let i = 0; i < tokens.length; i++) {
    if (upper[i] !== 'WITH' && upper[i] !== ',') continue;
    const at = upper[i + 1] === 'RECURSIVE' ? i + 2 : i + 1;
    const asAt = upper[at + 1] === '(' ? upper.indexOf(')', at + 1) + 1 : at + 1;
    const body = upper[asAt + 1];
    const name = identifier(tokens[at]);
    if (name && upper[asAt] === 'AS' && (body === '(' || body === 'NOT' || body === 'MATERIALIZED')) ctes.add(name.toLowerCase());
  }

  const parts: string[] = [];
  const add = (operation: string, table: string | undefined) => {
    if (table && ctes.has(table.toLowerCase())) return;
    const part = table ? `${operation} ${table}` : operation;
    if (!parts.includes(part)) parts.push(part);
  };
  const selectDepths: number[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const w = upper[i];
    if (w === '(') depth++;
    else if (w === ')') depth--;
    else if (w === 'INSERT' && upper[i + 1] === 'INTO') add('INSERT', identifier(tokens[i + 2]));
    else if (w === 'UPDATE' && upper[i - 1] !== 'DO' && upper[i - 1] !== 'FOR' && upper[i - 1] !== 'KEY') add('UPDATE', identifier(tokens[i + 1] === 'ONLY' ? tokens[i + 2] : tokens[i + 1]));
    else if (w === 'DELETE' && upper[i + 1] === 'FROM') add('DELETE', identifier(tokens[i + 2]));
    else if (w === 'SELECT') selectDepths.push(depth);
    else if (w === 'FROM' && selectDepths.length > 0 && selectDepths[selectDepths.length - 1] === depth && upper[i - 1] !== 'DELETE') {
      selectDepths.pop();
      const table = identifier(tokens[i + 1]);
      if (table) add('SELECT', table);
    }
  }
  const operation = upper.find((w) => /^[A-Z]+$/.test(w) && w !== 'WITH' && w !== 'RECURSIVE') ?? 'QUERY';
  const firstWord = /^[A-Z]+$/.test(upper[0] ?? '') ? upper[0] : 'QUERY';
  if (parts.length === 0) return { summary: firstWord === 'WITH' ? operation : firstWord, operation: firstWord === 'WITH' ? operation : firstWord };
  const tables = new Set(parts.map((p) => p.split(' ')[1]).filter(Boolean));
  return {
    summary: parts.slice(0, MAX_PARTS).join(' '),
    operation: parts[0].split(' ')[0],
    ...(tables.size === 1 ? { collection: [...tables][0] } : {}),
  };
}
