/**
 * The one typed client of the back-office API (/backoffice/v1 on the same origin). The session
 * cookie travels by itself; every request echoes the CSRF cookie in X-CSRF-Token. A failure is an
 * ApiError carrying the API's status and message, never a stack trace.
 */
export const API = '/backoffice/v1';
const CSRF_COOKIE = 'relay_bo_csrf';

/** One field's problem as the API's error envelope names it (`details`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly details: ErrorDetail[] = [],
    /** The error envelope's `data` (a refused template change names the casinos it would break). */
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

/** The platform admin API; a signed-in platform admin's session works there too (same cookie and CSRF token). */
export const ADMIN_API = '/admin/v1';

/** The gateway's answer when there is no live session (idle, expired, or signed out elsewhere). */
export const NOT_SIGNED_IN = 'AUTHENTICATION_FAILED';

function csrfToken(): string | undefined {
  const part = document.cookie.split('; ').find((c) => c.startsWith(`${CSRF_COOKIE}=`));
  return part ? decodeURIComponent(part.slice(CSRF_COOKIE.length + 1)) : undefined;
}

export interface Envelope<T, M = Record<string, unknown>> {
  statusCode: number;
  message: string;
  data: T;
  meta?: M;
}

let onSessionEnded: () => void = () => undefined;
export function whenSessionEnds(fn: () => void): void {
  onSessionEnded = fn;
}

export function request<T, M = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Envelope<T, M>> {
  return requestAt<T, M>(API, method, path, body);
}

export async function requestAt<T, M = Record<string, unknown>>(base: string, method: string, path: string, body?: unknown): Promise<Envelope<T, M>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const csrf = csrfToken();
  if (csrf) headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    // The session probe's refusal means "not signed in yet", not "your session ended".
    if (parsed?.error === NOT_SIGNED_IN && !path.startsWith('/auth/') && path !== '/session') onSessionEnded();
    throw new ApiError(res.status, parsed?.message ?? `Request failed (${res.status})`, parsed?.error, Array.isArray(parsed?.details) ? parsed.details : [], parsed?.data ?? null);
  }
  return parsed as Envelope<T, M>;
}

/** Who is signed in; null when nobody is. */
export async function currentSession(): Promise<SessionInfo | null> {
  try {
    return (await get<SessionInfo>('/session')).data;
  } catch (err) {
    if (err instanceof ApiError && err.code === NOT_SIGNED_IN) return null;
    throw err;
  }
}

export const get = <T, M = Record<string, unknown>>(path: string) => request<T, M>('GET', path);
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => request<T>('PUT', path, body);

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// ---- shapes the API answers with ----

export type Scope = { type: 'platform' } | { type: 'casino'; providerId: string } | { type: 'studio'; groupId: string };

export interface Account {
  accountId: string;
  email: string;
  displayName: string;
  role: string;
  scope: Scope;
}

export interface SessionInfo {
  actorType: string;
  role: string;
  scope: Scope;
  account: Account | null;
  idleTimeoutSeconds: number;
}

export type SignInStep =
  | { challenge: string; next: 'totp' }
  | { challenge: string; next: 'enrol'; enrolment: { secret: string; otpauthUri: string; qrCodeDataUrl: string } };

export interface SignedIn {
  account: Account;
  csrfToken: string;
  expiresAt: string;
  recoveryCodes?: string[];
}

export interface Round {
  providerId: string;
  roundId: string;
  groupId: string;
  gameId: number;
  playerId: string;
  sessionId: string;
  currency: string;
  status: string;
  betAmount: number | null;
  payoutAmount: number | null;
  appliedMultiplier: number | null;
  betTransactionId: string;
  settleTransactionId: string | null;
  settleReason: string | null;
  outcome: string | null;
  openedAt: string | null;
  settledAt: string | null;
  createdAt: string | null;
}

export interface Transaction {
  providerId: string;
  transactionId: string;
  previousTransactionId: string | null;
  category: string;
  status: string;
  groupId: string;
  gameId: number;
  playerId: string;
  sessionId: string;
  roundId: string;
  amount: number | null;
  currency: string;
  reason: string | null;
  balance: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  completedAt?: string | null;
  createdAt?: string | null;
  attemptLog?: Attempt[];
}

export interface Attempt {
  attempt: number;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  outcome: string;
  casinoStatus: number | null;
  errorCodeToGame: string | null;
  errorMessage: string | null;
}

export interface SearchMeta {
  nextCursor: string | null;
  totals: { count: number; byCurrency: { currency: string; count: number; amount?: number; betAmount?: number; payoutAmount?: number }[] };
}

export interface RoundStory {
  round: Round;
  transactions: Transaction[];
  session: { sessionId: string; currency: string; playerId: string; createdAt: string | null; expiresAt: string | null } | null;
  /** Each round-ended call the game made for the round and the casino's answer, oldest first. */
  roundEndedNotifications: { providerId: string; outcome: string; errorMessage: string | null; requestId: string | null; notifiedAt: string }[];
}

export interface ReconciliationItem {
  kind: string;
  providerId: string;
  recordId: string;
  groupId: string;
  gameId: number;
  playerId: string;
  roundId: string;
  transactionId: string;
  category: string;
  amount: number | null;
  currency: string;
  errorCode: string | null;
  since: string | null;
  ageSeconds: number;
  state: string;
  note: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  suggestedAction: string;
}

export interface QueueMeta {
  total: number;
  page: number;
  limit: number;
  counts: { kind: string; count: number }[];
}

export interface FlaggedWin {
  state: string;
  providerId: string;
  transactionId: string;
  groupId: string;
  gameId: number;
  playerId: string;
  roundId: string;
  amount: number;
  currency: string;
  appliedMultiplier: number | null;
  betAmount: number | null;
  flaggedFor: string[] | string;
  reviewNote: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
  createdAt: string | null;
}

/** A casino's win-flag thresholds (GET /money/flag-thresholds): its own, or the defaults. */
export interface CasinoThresholds {
  providerId: string;
  name: string;
  status: string;
  isDefault: boolean;
  multiplierOver: number;
  /** Currency code to amount; '*' for every other currency. */
  payoutOver: Record<string, number>;
  updatedBy: string | null;
  updatedAt: string | null;
}

export interface ReportRow {
  day?: string;
  providerId?: string;
  groupId?: string;
  gameId?: number;
  currency: string;
  bets: number;
  betSum: number;
  payoutSum: number;
  ggr: number;
  roundsSettled: number;
  roundsOpen: number;
  distinctPlayers: number;
}

export interface ReportMeta {
  total: number;
  totals: ReportRow[];
}

export const storyPath = (providerId: string, roundId: string) => `/rounds/${encodeURIComponent(providerId)}/${encodeURIComponent(roundId)}`;

/** One casino, one operation, one window of GET /money/wallet-health. */
export interface WalletHealth {
  providerId: string;
  operation: 'debit' | 'credit';
  window: 'hour' | 'day';
  attempts: number;
  ok: number;
  declined: number;
  casinoErrors: number;
  errorRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
}
