import { AppError, type ErrorCode } from '../errors';
import { MAX_AMOUNT, roundBalance } from '../money';
import type { CasinoOperation } from './protocol';

/**
 * docs/api/casino.json "How casino answers map to relay errors", as one pure function of the operation,
 * the HTTP status and the body text. Kept apart from the transport so the table reads in one place.
 */
export interface CasinoAnswer {
  ok: true;
  status: number;
  rawBody: string;
}

export interface CasinoAccount extends CasinoAnswer {
  /** Rounded half-up to two decimals in exact decimal arithmetic. */
  balance: number;
  username?: string;
  /** The answer for the audit record, scrubbed and cut like a failure's (never rawBody at rest). */
  casinoBody: string;
}

export interface CasinoFailure {
  ok: false;
  error: AppError;
  casinoStatus?: number;
  /** The casino's answer for the audit record, at most AUDIT_BODY_BYTES. */
  casinoBody?: string;
}

export type CasinoResult<T extends CasinoAnswer = CasinoAccount> = T | CasinoFailure;

export const AUDIT_BODY_BYTES = 2048;

/** Secret values (the player's walletToken) that must not survive into messages or audit text. */
export type Scrub = readonly string[];

export function interpretCasinoAnswer(operation: CasinoOperation, status: number, text: string, scrub: Scrub = []): CasinoResult<CasinoAnswer | CasinoAccount> {
  const json = parseJson(text);
  const fail = (code: ErrorCode, message: string): CasinoFailure => ({
    ok: false,
    // The message is our text plus a casino reason already refused when it holds a secret.
    error: new AppError(code, message),
    casinoStatus: status,
    casinoBody: auditBody(text, scrub),
  });

  if (status >= 200 && status < 300) {
    if (operation === 'round-ended') return { ok: true, status, rawBody: text };
    if (json === undefined) return fail('INVALID_PROVIDER_RESPONSE', `Casino answered the ${operation} with a body that is not JSON`);
    const balance = accountBalance(json, text);
    if (balance === null) return fail('INVALID_PROVIDER_RESPONSE', `Casino answered the ${operation} without a usable non-negative balance`);
    const username = isObject(json) && typeof json.username === 'string' ? casinoUsername(json.username, scrub) : undefined;
    return { ok: true, status, rawBody: text, casinoBody: auditBody(text, scrub), balance, ...(username !== undefined ? { username } : {}) };
  }

  const reason = casinoReason(json, scrub) ?? `HTTP ${status}`;
  if (status >= 400 && status < 500) {
    if (status === 401 || casinoErrorCode(json) === 'TOKEN_EXPIRED') {
      return fail('AUTHENTICATION_TOKEN_EXPIRED', `Casino rejected the player's wallet token on the ${operation}: ${reason}`);
    }
    if (operation === 'round-ended') {
      return status === 403
        ? fail('AUTHENTICATION_TOKEN_EXPIRED', `Casino rejected the round-ended notification: ${reason}`)
        : fail('PROVIDER_API_FAILURE', `Casino refused the round-ended notification with HTTP ${status}: ${reason}`);
    }
    if (operation === 'debit') return fail('FUND_WITHDRAW_FAILED', `Casino refused the debit: ${reason}`);
    return fail('PROVIDER_API_FAILURE', `Casino refused the ${operation} with HTTP ${status}: ${reason}`);
  }
  if (status >= 500 && status < 600) {
    if (operation === 'debit') return fail('CASHOUT_FAILED', `Casino failed the debit with HTTP ${status}: ${reason}`);
    return fail('PROVIDER_API_FAILURE', `Casino failed the ${operation} with HTTP ${status}: ${reason}`);
  }
  return fail('PROVIDER_API_FAILURE', `Casino answered the ${operation} with unexpected HTTP ${status}`);
}

/** No answer within the casino time-out: the movement may or may not have happened. */
export function timedOut(operation: CasinoOperation, timeoutMs: number): CasinoFailure {
  return { ok: false, error: new AppError('INTEGRATION_TIMED_OUT', `Casino did not answer the ${operation} within ${timeoutMs} ms`) };
}

/** Connection refused, reset, DNS failure...: the casino could not be reached or hung up. */
export function unreachable(operation: CasinoOperation, err: unknown): CasinoFailure {
  return { ok: false, error: new AppError('PROVIDER_API_FAILURE', `Could not complete the ${operation} call to the casino: ${transportReason(err)}`) };
}

/** Why a call got no answer, in words safe to show (never the error's own message, which may hold a URL). */
export function transportReason(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out';
    case undefined:
      return 'network error';
    default:
      return /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'network error';
  }
}

function accountBalance(json: unknown, text: string): number | null {
  if (!isObject(json) || !('balance' in json)) return null;
  // A JSON number is rounded from the digits the casino wrote, not from the nearest double
  // (2.67499999999999999 must not become 2.68).
  const input = typeof json.balance === 'number' ? (topLevelNumberText(text, 'balance') ?? json.balance) : json.balance;
  const rounded = roundBalance(input);
  // Beyond what a JSON number holds to the cent (MAX_AMOUNT): outside the contract.
  if (!rounded || rounded.gte(MAX_AMOUNT)) return null;
  return rounded.toNumber();
}

const NUMBER = /-?\d+(\.\d+)?([eE][-+]?\d+)?/y;

/**
 * Raw text of a number under `key` in the top-level object of `text`, which JSON.parse has
 * accepted. The last occurrence wins, as in JSON.parse.
 */
export function topLevelNumberText(text: string, key: string): string | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let depth = 0;
  let prev = '';
  let found: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && (prev === '{' || prev === ',')) {
        let k = j + 1;
        while (text[k] !== ':') k++;
        k++;
        while (/\s/.test(text[k])) k++;
        if (JSON.parse(text.slice(i, j + 1)) === key) {
          NUMBER.lastIndex = k;
          found = NUMBER.exec(text)?.[0];
        }
        prev = ':';
        i = k - 1;
        continue;
      }
      prev = '"';
      i = j;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if ('{}[],:'.includes(c)) prev = c;
  }
  return found;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function casinoErrorCode(json: unknown): string | undefined {
  return isObject(json) && typeof json.error === 'string' ? json.error : undefined;
}

/** The casino's own error code, when it is a short code-like text safe to show. */
function casinoReason(json: unknown, scrub: Scrub): string | undefined {
  if (!isObject(json)) return undefined;
  for (const field of ['error', 'code', 'message']) {
    const value = json[field];
    if (typeof value === 'string' && /^[\w .:,'/-]{1,120}$/.test(value) && !scrub.some((s) => s !== '' && value.includes(s))) return value;
  }
  return undefined;
}

function scrubbed(text: string, scrub: Scrub): string {
  return scrub.reduce((acc, secret) => (secret === '' ? acc : acc.split(secret).join('[redacted]')), text);
}

export const MAX_USERNAME_CHARS = 100;

/**
 * Text from a casino is stored and answered, so it must always be storable: a NUL (which no
 * PostgreSQL text holds) would leave a paid movement PENDING for good, since the casino replays
 * the same answer to every repeat. Control characters go, an unpaired surrogate becomes U+FFFD,
 * the length is capped; a username holding the wallet token is dropped (the player's own name or
 * id is answered instead), as is one left empty.
 */
export function casinoUsername(value: string, scrub: Scrub = []): string | undefined {
  const clean = [...storableText(value).trim()].slice(0, MAX_USERNAME_CHARS).join('');
  if (clean === '' || scrub.some((secret) => secret !== '' && clean.includes(secret))) return undefined;
  return clean;
}

// C0 and C1 control characters and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function storableText(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed().replace(CONTROL, '');
}

/** Truncated to AUDIT_BODY_BYTES of UTF-8 without a broken trailing character. */
export function auditBody(text: string, scrub: Scrub = []): string {
  // Kept as the casino wrote it but for a raw NUL, which no PostgreSQL text can hold.
  const clean = scrubbed(text, scrub).split('\u0000').join('');
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= AUDIT_BODY_BYTES) return clean;
  return bytes.subarray(0, AUDIT_BODY_BYTES).toString('utf8').replace(/\uFFFD+$/, '');
}
