import http from 'node:http';
import express from 'express';
import pg from 'pg';
import { Pool } from 'undici';
import { IDENTITY_HEADER, IdentityVerifier, money, MONEY_PATH_POOL, numberedPlaceholders, signCasinoRequest, toMoneyString, sessionSettings, withSettings, type Statement } from '@relay/shared';
import { claimOrFindStatement, debitSuccessStatement, settleStatement, type MovementRecord } from '@relay/wallet';
import { expressApp, required, serve } from './floor-process';

/**
 * The floor of the wallet (money bench, "bare stand-ins"): the I/O the spec makes every money call
 * do and nothing else. The gateway's identity is verified (cached, as the wallet does), the session
 * is read from memory, the PENDING claim is committed, the casino is called (signed), and the
 * outcome is committed together with the round's change, with the wallet's own statements as named
 * prepared statements on a pool as large as the wallet's (DATABASE_POOL_MAX, 20) and kept like it. No express, no
 * validation, no logging, no metrics, no request context. FLOOR_PORT, DATABASE_URL,
 * INTERNAL_AUTH_SECRET, FLOOR_WORLD (JSON: the casino, the game and the players' sessions).
 *
 * FLOOR_FRAMEWORK=express: the same work in an express app that parses the body with express.json,
 * as the architecture makes the wallet do, and nothing else.
 */
interface World {
  providerId: string;
  groupId: string;
  gameId: number;
  walletSecret: string;
  casinoOrigin: string;
  sessions: Record<string, { playerId: string; walletToken: string }>;
}

/** The bench's requests: well-formed by construction, so nothing here checks them. */
interface MoneyRequest {
  sessionId: string;
  roundId: string;
  transactionId: string;
  amount: number;
  reason?: string;
  appliedMultiplier?: number;
  betAmount?: number;
  previousTransactionId?: string;
}

const world = JSON.parse(required('FLOOR_WORLD')) as World;
const verifier = new IdentityVerifier(required('INTERNAL_AUTH_SECRET'));
// The wallet's pool policy: its session settings, every connection kept (idleTimeoutMillis 0: never closed).
const db = new pg.Pool({
  connectionString: withSettings(required('DATABASE_URL'), sessionSettings(MONEY_PATH_POOL)),
  max: Number(process.env.DATABASE_POOL_MAX ?? 20),
  idleTimeoutMillis: 0,
});
const casino = new Pool(world.casinoOrigin, { connections: 64 });
// Each statement's name and numbered text, made once as the wallet's runPrepared makes them.
const prepared = new Map<string, { name: string; text: string }>();

async function run(statement: Statement): Promise<pg.QueryResult> {
  let known = prepared.get(statement.sql);
  if (!known) {
    known = { name: `floor_${prepared.size}`, text: numberedPlaceholders(statement.sql) };
    prepared.set(statement.sql, known);
  }
  return db.query({ name: known.name, text: known.text, values: statement.bindings });
}

async function moneyCall(path: string, req: MoneyRequest): Promise<object> {
  const session = world.sessions[req.sessionId];
  const debit = path.endsWith('/cash-out');
  const amount = toMoneyString(req.amount);
  const record: MovementRecord = {
    providerId: world.providerId,
    transactionId: req.transactionId,
    previousTransactionId: req.previousTransactionId ?? null,
    category: debit ? 'CASH_OUT' : 'CASH_IN',
    groupId: world.groupId,
    gameId: world.gameId,
    playerId: session.playerId,
    sessionId: req.sessionId,
    roundId: req.roundId,
    amount,
    currency: 'EUR',
    language: 'en',
    reason: req.reason ?? null,
    appliedMultiplier: debit ? null : money(req.appliedMultiplier ?? 0).toFixed(),
    betAmount: debit ? amount : toMoneyString(req.betAmount ?? 0),
    awardId: null,
    campaignId: null,
    isLastFreebet: null,
    isRetry: false,
  };
  // The wallet's first statement of every money call: the claim, or the record of a known key.
  const claimed = (await run(claimOrFindStatement(record, req))).rows[0] as { claimed: boolean; id: string; attempt: number; created_at: string } | undefined;
  if (!claimed?.claimed) throw new Error('transactionId already claimed'); // the bench never repeats one
  const claim = { pk: claimed.id, attempt: claimed.attempt, createdAt: claimed.created_at };
  const body = JSON.stringify({
    providerId: world.providerId,
    playerId: session.playerId,
    walletToken: session.walletToken,
    sessionId: req.sessionId,
    gameId: world.gameId,
    currency: 'EUR',
    roundId: req.roundId,
    transactionId: req.transactionId,
    amount: req.amount,
    ...(debit ? {} : { reason: req.reason, appliedMultiplier: req.appliedMultiplier, betAmount: req.betAmount, previousTransactionId: req.previousTransactionId, isRetry: false }),
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const res = await casino.request({
    path: debit ? '/wallet/debit' : '/wallet/credit',
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-relay-timestamp': String(timestamp), 'x-relay-signature': signCasinoRequest(world.walletSecret, timestamp, body) },
    body,
  });
  const casinoBody = await res.body.text();
  const account = JSON.parse(casinoBody) as { balance: number; username?: string };
  const success = { claim, balance: toMoneyString(account.balance), username: account.username ?? session.playerId, casinoStatus: res.statusCode, casinoBody };
  const round = { providerId: world.providerId, roundId: req.roundId, groupId: world.groupId, gameId: world.gameId, playerId: session.playerId };
  await run(
    debit
      ? debitSuccessStatement(success, { ...round, sessionId: req.sessionId, currency: 'EUR', language: 'en', betAmount: amount, betTransactionId: req.transactionId, gameData: undefined })
      : settleStatement(success, { ...round, payoutAmount: amount, appliedMultiplier: money(req.appliedMultiplier ?? 0).toFixed(), settleTransactionId: req.transactionId, settleReason: req.reason ?? '', previousTransactionId: req.previousTransactionId ?? null, outcome: null, settlementData: undefined }),
  );
  return { id: session.playerId, balance: account.balance, username: success.username };
}

/** The identity the gateway signed, as the wallet checks it (cached by the verifier). */
async function verified(header: string | string[] | undefined): Promise<void> {
  const identity = await verifier.verify(String(header ?? ''));
  if (identity?.kind !== 'provider' || identity.groupId !== world.groupId) throw new Error('identity refused');
}

function bare(): http.Server {
  return http.createServer((req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(200).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await verified(req.headers[IDENTITY_HEADER]);
        return moneyCall(req.url ?? '', JSON.parse(Buffer.concat(chunks).toString('utf8')) as MoneyRequest);
      })().then(
        (account) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(account)),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
      );
    });
  });
}

function onExpress(): http.Server {
  const app = expressApp();
  app.use(express.json({ limit: '64kb' }));
  const route: express.RequestHandler = (req, res) => {
    verified(req.headers[IDENTITY_HEADER])
      .then(() => moneyCall(req.path, req.body as MoneyRequest))
      .then(
        (account) => res.json(account),
        (err: unknown) => res.status(500).type('text').send(String(err)),
      );
  };
  app.post('/api/balance/cash-out', route);
  app.post('/api/balance/cash-in', route);
  return http.createServer(app);
}

serve(process.env.FLOOR_FRAMEWORK === 'express' ? onExpress() : bare());
