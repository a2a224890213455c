import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Logger } from '@relay/shared';
import { CHANCES, isChance, multiplierFor } from './dice';
import { GameError, playRound, type PlayDeps } from './play';
import { RelayError } from './relay';
import type { SessionBook } from './sessions';

/**
 * The demo game's HTTP side: the page (static HTML and JS, no build step) and the JSON endpoints it
 * calls. The page holds only its sessionId; everything else is looked up by this backend.
 *   GET  /demo/session?sessionId=&currency=   validate, then the player's balance and bet limits
 *   POST /demo/bet  {sessionId, amount, chance, forceOutcome?}   one round: cash-out, roll, cash-in, round-ended
 *   GET  /demo/history?sessionId=             the player's rounds and transactions from the relay's reporting
 */
export interface AppDeps extends PlayDeps {
  sessions: SessionBook;
  allowForcedOutcome: boolean;
  logger: Logger;
}

const PUBLIC_DIR = path.join(__dirname, '..', 'public');
const sessionId = z.string().min(1).max(200);

const sessionQuery = z.object({ sessionId, currency: z.string().min(1).max(16).optional() });
const betBody = z.object({
  sessionId,
  amount: z.number(),
  chance: z.number().refine(isChance, `must be one of ${CHANCES.join(', ')}`),
  forceOutcome: z.enum(['WIN', 'LOSS']).optional(),
});

export function createDemoGameApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));
  app.use((req, res, next) => {
    res.set('referrer-policy', 'no-referrer'); // the page URL carries the sessionId
    res.set('content-security-policy', "default-src 'self'");
    if (req.path.startsWith('/demo/')) res.set('cache-control', 'no-store');
    next();
  });

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/favicon.ico', (_req, res) => void res.status(204).end());

  app.get('/demo/session', async (req, res) => {
    const query = parse(sessionQuery, req.query);
    // The currency from the page's URL is only a hint the relay checks; the session's answer is what counts.
    const session = await deps.sessions.validate(query.sessionId, query.currency);
    const [account, limits] = await Promise.all([
      deps.relay.account(session.sessionId, session.currency),
      deps.relay.currencyConfig(session.providerId, deps.gameId, session.currency),
    ]);
    res.json({
      playerId: session.playerId,
      username: account.username ?? session.playerId,
      providerId: session.providerId,
      gameName: session.gameName,
      currency: session.currency,
      balance: account.balance,
      limits: limits && { minBet: limits.minBet, maxBet: limits.maxBet, defaultBet: limits.defaultBet, betSuggestions: limits.betSuggestions, maxWin: limits.maxWin },
      chances: CHANCES.map((chance) => ({ chance, multiplier: multiplierFor(chance) })),
      forcedOutcomeAllowed: deps.allowForcedOutcome,
    });
  });

  app.post('/demo/bet', async (req, res) => {
    const body = parse(betBody, req.body);
    if (body.forceOutcome && !deps.allowForcedOutcome) throw new GameError(400, 'FORCED_OUTCOME_DISABLED', 'Forced outcomes are for tests only.');
    const session = await deps.sessions.resolve(body.sessionId);
    res.json(await playRound(deps, session, { amount: body.amount, chance: body.chance as (typeof CHANCES)[number], forced: body.forceOutcome }));
  });

  app.get('/demo/history', async (req, res) => {
    const { sessionId: id } = parse(sessionQuery, req.query);
    const session = await deps.sessions.resolve(id);
    // Scoped to this player at this casino: player ids are unique per casino only.
    const filter = { providerId: session.providerId, playerId: session.playerId, gameId: deps.gameId, limit: 10 };
    const [rounds, transactions] = await Promise.all([deps.relay.rounds(filter), deps.relay.transactions(filter)]);
    res.json({
      rounds: rounds.map((r) => pick(r, ['roundId', 'status', 'betAmount', 'payoutAmount', 'appliedMultiplier', 'settleReason', 'outcome', 'currency', 'openedAt', 'settledAt'])),
      transactions: transactions.map((t) => pick(t, ['transactionId', 'roundId', 'category', 'status', 'amount', 'reason', 'balance', 'currency', 'errorCode', 'createdAt'])),
    });
  });

  app.use(express.static(PUBLIC_DIR, { index: 'index.html', maxAge: 0 }));
  app.use((_req, res) => void res.status(404).json({ error: 'NOT_FOUND', message: 'No such page.' }));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = present(err, deps.logger);
    res.status(status).json(body);
  });
  return app;
}

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new GameError(400, 'BAD_REQUEST', `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

/** Errors as the page shows them: the relay's codes pass through; anything unknown is a bare 500. */
function present(err: unknown, logger: Logger): { status: number; body: { error: string; message: string } } {
  if (err instanceof GameError) return { status: err.status, body: { error: err.code, message: err.message } };
  if (err instanceof RelayError) {
    logger.warn({ status: err.status, code: err.code }, 'relay refused a call');
    const status = err.status >= 400 && err.status < 500 ? err.status : 502;
    return { status, body: { error: err.code, message: relayMessage(err) } };
  }
  const e = err as { status?: unknown; type?: unknown };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return { status: e.status, body: { error: 'BAD_REQUEST', message: 'The request is not valid JSON.' } };
  logger.error({ err }, 'unexpected error');
  return { status: 500, body: { error: 'INTERNAL_ERROR', message: 'Something went wrong in the game.' } };
}

function relayMessage(err: RelayError): string {
  switch (err.code) {
    case 'SESSION_EXPIRED':
    case 'AUTHENTICATION_TOKEN_EXPIRED':
      return 'Your session has ended: go back to the casino and launch the game again.';
    case 'SESSION_CURRENCY_MISMATCH':
    case 'SESSION_GAME_MISMATCH':
      return 'This session was opened for another game or currency.';
    default:
      return 'The game could not reach the casino. Try again in a moment.';
  }
}

function pick(record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => record[f] !== undefined).map((f) => [f, record[f]]));
}
