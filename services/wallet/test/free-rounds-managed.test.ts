import { randomUUID } from 'node:crypto';
import { startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld, type Player } from '../../../test/game';
import { adminGet, adminPut } from '../../../test/provision';
import { applied, attempts, transactionRow } from './money-support';
import { eventually } from '../../../test/faults/support/money';

/**
 * Managed free rounds on the money path (issue 35, points 1 and 4): a casino in `managed` mode has
 * every new freebet credit checked against its award and consuming one round with its claim; a
 * transactionId claimed before is answered as always, whatever became of the award since.
 *
 * Crash safety, by construction rather than by a kill here (services/wallet/src/domain/free-round-credit.ts):
 * the award's row lock, the claim and the round consumed are ONE database transaction, so a crash
 * before its COMMIT leaves no claim and no round consumed (the game's repeat is a fresh claim that
 * consumes it), and a crash after it leaves both (the repeat is a takeover of the PENDING or FAILED
 * record, which never reads the award). total_won moves only in the statement that writes SUCCESS.
 */
let p: TestPlatform;
let g: GameWorld;
/** A casino left in passthrough mode, on the same sandbox. */
let pass: GameWorld;
let otherGame: number;

const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

interface AwardSpec {
  awardId?: string;
  providerId?: string;
  playerId: string;
  currency?: string;
  gameIds?: number[];
  rounds?: number;
  roundsPlayed?: number;
  betValue?: string;
  startsAt?: Date;
  expiresAt?: Date;
  state?: string;
}

/** Writes an award as the back office would have created it (its routes are tested in services/backoffice). */
async function award(spec: AwardSpec): Promise<string> {
  const awardId = spec.awardId ?? uniqueId('award');
  await p.db.primary('free_round_awards').insert({
    provider_id: spec.providerId ?? g.providerId,
    id: randomUUID(),
    award_id: awardId,
    campaign_id: 'welcome',
    player_id: spec.playerId,
    currency: spec.currency ?? 'EUR',
    game_ids: spec.gameIds ?? [g.gameId],
    group_ids: [g.groupId],
    rounds: spec.rounds ?? 3,
    rounds_played: spec.roundsPlayed ?? 0,
    bet_value: spec.betValue ?? '1.00',
    starts_at: spec.startsAt ?? at(-HOUR),
    expires_at: spec.expiresAt ?? at(24 * HOUR),
    state: spec.state ?? 'ACTIVE',
  });
  return awardId;
}

async function awardRow(awardId: string, providerId = g.providerId) {
  const row = await p.db.primary('free_round_awards').where({ provider_id: providerId, award_id: awardId }).first();
  return { state: row.state, roundsPlayed: row.rounds_played, totalWon: row.total_won };
}

function freebet(w: GameWorld, pl: Player, awardId: string | undefined, over: Record<string, unknown> = {}) {
  return {
    sessionId: pl.sessionId,
    gameId: w.gameId,
    currency: pl.currency,
    roundId: uniqueId('free-round'),
    transactionId: uniqueId('freebet'),
    amount: 2.5,
    reason: 'FREEBET_WIN',
    appliedMultiplier: 2.5,
    betAmount: 1,
    ...(awardId !== undefined ? { awardId } : {}),
    campaignId: 'welcome',
    ...over,
  };
}

const credit = (w: GameWorld, body: unknown) => w.call('POST', '/api/balance/cash-in', body);
const retry = (w: GameWorld, body: unknown) => w.call('POST', '/api/balance/cash-in/retry', body);

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'], env: { CASINO_TIMEOUT_MS: '2000' } });
  g = await startGameWorld(p, { creditOnDisconnect: true });
  pass = await startGameWorld(p, { sandbox: g.sandbox, creditOnDisconnect: true });
  otherGame = uniqueGameId();
  expect((await adminPut(p, `games/${otherGame}`, { name: `Game ${otherGame}`, groupId: g.groupId, frontendUrl: 'https://game.example.com/' })).status).toBe(200);
  expect((await adminPut(p, `casinos/${g.providerId}/free-rounds`, { mode: 'managed' })).status).toBe(200);
}, 60_000);
afterEach(() => g.sandbox.clearFaults());
afterAll(async () => {
  await p?.stop();
  await g?.sandbox.close();
});

describe('When the free-rounds mode of a casino is set through the admin API', () => {
  it('then a casino never set reads passthrough, the PUT answers and stores the mode, and the write is audited', async () => {
    expect((await adminGet(p, `casinos/${pass.providerId}/free-rounds`)).body.data).toEqual({ providerId: pass.providerId, mode: 'passthrough' });
    const set = await adminPut(p, `casinos/${g.providerId}/free-rounds`, { mode: 'managed' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ statusCode: 200, message: 'Free-rounds mode saved', data: { providerId: g.providerId, mode: 'managed' } });
    expect((await adminGet(p, `casinos/${g.providerId}/free-rounds`)).body.data.mode).toBe('managed');
    const entry = await p.db.primary('audit_log').where({ route: '/admin/v1/casinos/:providerId/free-rounds', target: `casinos:${g.providerId}` }).orderBy('id', 'desc').first();
    expect(entry).toBeDefined();
    expect(entry.after.free_rounds_mode).toBe('managed');
  });

  it('then an unknown mode is a 400, an unknown casino a 404, and the casino PUT body does not carry the mode', async () => {
    expect((await adminPut(p, `casinos/${g.providerId}/free-rounds`, { mode: 'strict' })).status).toBe(400);
    expect((await adminPut(p, 'casinos/no-such-casino/free-rounds', { mode: 'managed' })).body.error).toBe('PROVIDER_NOT_FOUND');
    const casino = await adminGet(p, `casinos/${g.providerId}`);
    expect(casino.body.data).not.toHaveProperty('freeRoundsMode');
    expect(casino.body.data).not.toHaveProperty('mode');
  });
});

describe('When a managed casino receives a new freebet credit that breaks a rule', () => {
  const cases: { name: string; code: string; setup: (pl: Player) => Promise<{ awardId?: string; over?: Record<string, unknown> }> }[] = [
    { name: 'no awardId', code: 'FREEBET_AWARD_NOT_FOUND', setup: async () => ({ awardId: undefined }) },
    { name: 'an unknown award', code: 'FREEBET_AWARD_NOT_FOUND', setup: async () => ({ awardId: uniqueId('nobody-awarded') }) },
    { name: "another casino's award", code: 'FREEBET_AWARD_NOT_FOUND', setup: async (pl) => ({ awardId: await award({ providerId: pass.providerId, playerId: pl.playerId }) }) },
    { name: "another player's award", code: 'FREEBET_AWARD_NOT_FOUND', setup: async () => ({ awardId: await award({ playerId: uniqueId('someone-else') }) }) },
    { name: 'an award for another game', code: 'FREEBET_AWARD_NOT_FOR_GAME', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, gameIds: [otherGame] }) }) },
    { name: 'an award in another currency', code: 'FREEBET_AWARD_NOT_FOR_GAME', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, currency: 'GBP' }) }) },
    { name: 'an award not started', code: 'FREEBET_AWARD_NOT_ACTIVE', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, startsAt: at(HOUR) }) }) },
    { name: 'an award expired', code: 'FREEBET_AWARD_NOT_ACTIVE', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, startsAt: at(-2 * HOUR), expiresAt: at(-1000) }) }) },
    { name: 'a cancelled award', code: 'FREEBET_AWARD_NOT_ACTIVE', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, state: 'CANCELLED', roundsPlayed: 1 }) }) },
    { name: 'an award completed by a forfeit', code: 'FREEBET_AWARD_NOT_ACTIVE', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, state: 'COMPLETED', roundsPlayed: 1 }) }) },
    { name: 'an award with every round played', code: 'FREEBET_AWARD_NO_ROUNDS_LEFT', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, state: 'COMPLETED', rounds: 2, roundsPlayed: 2 }) }) },
    { name: "a betAmount other than the award's", code: 'FREEBET_BET_MISMATCH', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId, betValue: '1.00' }), over: { betAmount: 1.01 } }) },
    { name: 'no betAmount (0)', code: 'FREEBET_BET_MISMATCH', setup: async (pl) => ({ awardId: await award({ playerId: pl.playerId }), over: { betAmount: undefined } }) },
    { name: 'a FREEBET_LOST for an unknown award', code: 'FREEBET_AWARD_NOT_FOUND', setup: async () => ({ awardId: uniqueId('nobody-awarded'), over: { reason: 'FREEBET_LOST', amount: 0, appliedMultiplier: 0 } }) },
    { name: 'a DISCONNECT_FREEBET_WIN for an unknown award (a tightening)', code: 'FREEBET_AWARD_NOT_FOUND', setup: async () => ({ awardId: uniqueId('nobody-awarded'), over: { reason: 'DISCONNECT_FREEBET_WIN' } }) },
  ];
  it.each(cases)('with $name, then it is refused 400 $code, the casino is not called and nothing is recorded', async ({ code, setup }) => {
    const pl = await g.launchPlayer();
    const { awardId, over } = await setup(pl);
    const body = freebet(g, pl, awardId, over);
    const before = awardId ? await p.db.primary('free_round_awards').where({ award_id: awardId }).select('provider_id', 'rounds_played', 'state', 'total_won') : [];
    const res = await credit(g, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(code);
    expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: body.transactionId })).toBe(0);
    expect(await transactionRow(p, g, body.transactionId)).toBeUndefined();
    expect(await p.db.primary('transaction_keys').where({ provider_id: g.providerId, transaction_id: body.transactionId }).first()).toBeUndefined();
    expect(await p.db.primary('free_round_plays').where({ provider_id: g.providerId, transaction_id: body.transactionId }).first()).toBeUndefined();
    if (awardId) expect(await p.db.primary('free_round_awards').where({ award_id: awardId }).select('provider_id', 'rounds_played', 'state', 'total_won')).toEqual(before);
  });
});

describe('When a managed casino receives a valid freebet credit', () => {
  it('then betAmount 1.0 equals a bet value of 1 (exact decimals), the casino is paid and the first round makes the award IN_PROGRESS', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardId = await award({ playerId: pl.playerId, betValue: '1', rounds: 3 });
    const body = freebet(g, pl, awardId, { betAmount: 1.0, amount: 2.5 });
    const res = await credit(g, body);
    expect(res.status).toBe(200);
    expect(res.body.balance).toBe(102.5);
    expect(await awardRow(awardId)).toEqual({ state: 'IN_PROGRESS', roundsPlayed: 1, totalWon: '2.50' });
    expect(await p.db.primary('free_round_plays').where({ provider_id: g.providerId, transaction_id: body.transactionId }).first()).toMatchObject({ award_id: awardId, round_number: 1 });
  });

  it('then the award is valid up to its expiry and not at it (the boundary, on the database clock)', async () => {
    const pl = await g.launchPlayer();
    const awardId = await award({ playerId: pl.playerId, rounds: 5 });
    await p.db.primary('free_round_awards').where({ provider_id: g.providerId, award_id: awardId }).update({ expires_at: p.db.primary.raw("now() + interval '3 seconds'") });
    expect((await credit(g, freebet(g, pl, awardId))).status).toBe(200);
    await p.db.primary('free_round_awards').where({ provider_id: g.providerId, award_id: awardId }).update({ expires_at: p.db.primary.raw('now()') });
    const late = await credit(g, freebet(g, pl, awardId));
    expect(late.body.error).toBe('FREEBET_AWARD_NOT_ACTIVE');
  });

  it('then the last round completes the award, rounds_played and total_won add up exactly, and a FREEBET_LOST adds nothing won', async () => {
    const pl = await g.launchPlayer();
    const awardId = await award({ playerId: pl.playerId, rounds: 3, betValue: '0.10' });
    expect((await credit(g, freebet(g, pl, awardId, { betAmount: 0.1, amount: 0.1 }))).status).toBe(200);
    expect((await credit(g, freebet(g, pl, awardId, { betAmount: 0.1, amount: 0, reason: 'FREEBET_LOST', appliedMultiplier: 0 }))).status).toBe(200);
    expect((await credit(g, freebet(g, pl, awardId, { betAmount: 0.1, amount: 0.2 }))).status).toBe(200);
    expect(await awardRow(awardId)).toEqual({ state: 'COMPLETED', roundsPlayed: 3, totalWon: '0.30' });
    expect((await credit(g, freebet(g, pl, awardId, { betAmount: 0.1 }))).body.error).toBe('FREEBET_AWARD_NO_ROUNDS_LEFT');
  });

  it('then isLastFreebet: true completes the award and forfeits the rounds left', async () => {
    const pl = await g.launchPlayer();
    const awardId = await award({ playerId: pl.playerId, rounds: 10 });
    expect((await credit(g, freebet(g, pl, awardId, { isLastFreebet: true }))).status).toBe(200);
    expect(await awardRow(awardId)).toMatchObject({ state: 'COMPLETED', roundsPlayed: 1 });
    expect((await credit(g, freebet(g, pl, awardId))).body.error).toBe('FREEBET_AWARD_NOT_ACTIVE');
  });

  it('then a DISCONNECT_FREEBET_WIN consumes a round like a FREEBET_WIN', async () => {
    const pl = await g.launchPlayer();
    const awardId = await award({ playerId: pl.playerId, rounds: 2 });
    expect((await credit(g, freebet(g, pl, awardId, { reason: 'DISCONNECT_FREEBET_WIN' }))).status).toBe(200);
    expect(await awardRow(awardId)).toMatchObject({ state: 'IN_PROGRESS', roundsPlayed: 1 });
  });

  it('then its betAmount is no real-money stake: no round is opened or settled, and the stake counts do not move', async () => {
    const pl = await g.launchPlayer();
    const awardId = await award({ playerId: pl.playerId });
    const body = freebet(g, pl, awardId);
    // Stake is what rounds hold (rounds.bet_amount, opened by debits); reports and the ledger's counts sum it from there.
    const stake = async () => (await p.db.primary('rounds').where({ provider_id: g.providerId }).sum({ s: 'bet_amount' }))[0].s;
    const before = await stake();
    expect((await credit(g, body)).status).toBe(200);
    expect(await p.db.primary('round_keys').where({ provider_id: g.providerId, round_id: body.roundId }).first()).toBeUndefined();
    expect(await stake()).toEqual(before);
  });
});

describe('When a transactionId that consumed a round is sent again', () => {
  it.each([
    ['completed', { state: 'COMPLETED' }],
    ['expired', { expires_at: new Date(Date.now() - 1000), starts_at: new Date(Date.now() - 2 * HOUR) }],
    ['cancelled', { state: 'CANCELLED' }],
  ])('after the award was %s, then the stored answer is replayed (plain and retry route) and no round is consumed again', async (_name, change) => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardId = await award({ playerId: pl.playerId, rounds: 3 });
    const body = freebet(g, pl, awardId);
    const first = await credit(g, body);
    expect(first.status).toBe(200);
    await p.db.primary('free_round_awards').where({ provider_id: g.providerId, award_id: awardId }).update(change);
    const replay = await credit(g, body);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const again = await retry(g, body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(applied(g, body.transactionId)).toBe(1);
    expect(await awardRow(awardId)).toMatchObject({ roundsPlayed: 1, totalWon: '2.50' });
  });

  it('while the award is locked by another credit, then the replay is still answered: a replay takes no award lock', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardId = await award({ playerId: pl.playerId, rounds: 3 });
    const body = freebet(g, pl, awardId);
    const first = await credit(g, body);
    const trx = await p.db.primary.transaction();
    try {
      await trx('free_round_awards').where({ provider_id: g.providerId, award_id: awardId }).forUpdate().first();
      const replay = await credit(g, body);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first.body);
    } finally {
      await trx.rollback();
    }
  });

  it('when its casino credit failed and the award completed since, then the retry route still pays it once and total_won counts it once', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardId = await award({ playerId: pl.playerId, rounds: 1 });
    const body = freebet(g, pl, awardId, { amount: 4 });
    g.sandbox.setFault({ providerId: g.providerId, operation: 'credit', playerId: pl.playerId }, { kind: 'error', status: 503 }, 1);
    const failed = await credit(g, body);
    expect(failed.status).toBe(502);
    // The round was consumed by the claim: the award is complete although nothing was paid yet.
    expect(await awardRow(awardId)).toEqual({ state: 'COMPLETED', roundsPlayed: 1, totalWon: '0.00' });
    const paid = await retry(g, body);
    expect(paid.status).toBe(200);
    expect(paid.body.balance).toBe(104);
    expect(await transactionRow(p, g, body.transactionId)).toMatchObject({ status: 'SUCCESS', attempt: 2, is_retry: true });
    expect((await attempts(p, g, body.transactionId)).map((a) => a.outcome)).toEqual(['FAILED', 'SUCCESS']);
    expect(applied(g, body.transactionId)).toBe(1);
    expect(await awardRow(awardId)).toEqual({ state: 'COMPLETED', roundsPlayed: 1, totalWon: '4.00' });
    // And a plain repeat afterwards is a replay.
    expect((await credit(g, body)).body).toEqual(paid.body);
  });
});

// The review of slice 2: a FAILED transactionId taken over must be the same credit in managed mode.
describe('When a managed casino credit failed and its transactionId comes back as another credit', () => {
  const failOnce = (pl: { playerId: string }) => g.sandbox.setFault({ providerId: g.providerId, operation: 'credit', playerId: pl.playerId }, { kind: 'error', status: 503 }, 1);

  it.each([
    ['a plain win resent as a freebet of an award', 'plain-to-freebet'],
    ['a freebet resent naming another award', 'other-award'],
    ['a freebet resent with another bet value', 'other-bet'],
    ['a freebet resent as a plain win', 'freebet-to-plain'],
  ])('(%s), then it is refused 400 as another movement, the casino is not called again and no award changes', async (_, kind) => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardX = await award({ playerId: pl.playerId, rounds: 3, betValue: '1' });
    const awardY = await award({ playerId: pl.playerId, rounds: 3, betValue: '1' });
    const plain = { ...freebet(g, pl, undefined, { reason: 'DISCONNECT_NORMAL_WIN', amount: 2 }) } as Record<string, unknown>;
    delete plain.awardId;
    delete plain.campaignId;
    const first = kind === 'plain-to-freebet' ? plain : freebet(g, pl, awardX, { amount: 2 });
    failOnce(pl);
    expect((await credit(g, first)).status).toBe(502);
    const before = [await awardRow(awardX), await awardRow(awardY)];
    const repeat = {
      'plain-to-freebet': { ...freebet(g, pl, awardY, { amount: 2 }), transactionId: first.transactionId },
      'other-award': { ...first, awardId: awardY },
      'other-bet': { ...first, betAmount: 2 },
      'freebet-to-plain': { ...plain, transactionId: first.transactionId, roundId: first.roundId },
    }[kind]!;
    for (const send of [credit, retry]) {
      const res = await send(g, repeat);
      expect([res.status, res.body.error ?? res.body.message]).toEqual([400, expect.stringMatching(/another movement|Bad Request/)]);
    }
    expect(g.sandbox.countCalls({ providerId: g.providerId, transactionId: first.transactionId as string })).toBe(1);
    expect([await awardRow(awardX), await awardRow(awardY)]).toEqual(before);
    // The same credit again is taken over and paid.
    expect((await retry(g, first)).status).toBe(200);
  });
});

describe('When concurrent credits race for the last round of an award', () => {
  it('then exactly one is accepted, the others are refused NO_ROUNDS_LEFT, and the casino is paid once', async () => {
    const pl = await g.launchPlayer({ balance: 100 });
    const awardId = await award({ playerId: pl.playerId, rounds: 2, roundsPlayed: 1, state: 'IN_PROGRESS' });
    const bodies = Array.from({ length: 6 }, () => freebet(g, pl, awardId, { amount: 1 }));
    const answers = await Promise.all(bodies.map((b) => credit(g, b)));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.error)).toEqual(Array(5).fill('FREEBET_AWARD_NO_ROUNDS_LEFT'));
    expect(await awardRow(awardId)).toEqual({ state: 'COMPLETED', roundsPlayed: 2, totalWon: '1.00' });
    expect(g.sandbox.journal({ providerId: g.providerId, playerId: pl.playerId })).toHaveLength(1);
    expect(await p.db.primary('free_round_plays').where({ provider_id: g.providerId, award_id: awardId }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });
});

describe('When a casino is in passthrough mode', () => {
  it('then any awardId is relayed unchecked, as before, and no award is touched', async () => {
    const pl = await pass.launchPlayer({ balance: 100 });
    const awardId = await award({ providerId: pass.providerId, playerId: pl.playerId, rounds: 1 });
    for (const named of [uniqueId('nobody-awarded'), awardId]) {
      const body = freebet(pass, pl, named, { betAmount: 7 });
      const res = await credit(pass, body);
      expect(res.status).toBe(200);
      expect(pass.sandbox.countCalls({ providerId: pass.providerId, transactionId: body.transactionId })).toBe(1);
    }
    expect(await awardRow(awardId, pass.providerId)).toEqual({ state: 'ACTIVE', roundsPlayed: 0, totalWon: '0.00' });
  });
});

describe('When a casino whose config the wallet has cached is switched to managed and back', () => {
  it('then within a second the next freebet credit is checked, and after switching back relayed unchecked again', async () => {
    const w = await startGameWorld(p, { sandbox: g.sandbox });
    const pl = await w.launchPlayer({ balance: 100 });
    const unknown = () => freebet(w, pl, uniqueId('nobody-awarded'));
    expect((await credit(w, unknown())).status).toBe(200); // passthrough, and the casino is now cached
    expect((await adminPut(p, `casinos/${w.providerId}/free-rounds`, { mode: 'managed' })).status).toBe(200);
    await eventually(async () => (await credit(w, unknown())).status === 400, 2000, 'the managed mode to reach the wallet');
    expect((await credit(w, unknown())).body.error).toBe('FREEBET_AWARD_NOT_FOUND');
    expect((await adminPut(p, `casinos/${w.providerId}/free-rounds`, { mode: 'passthrough' })).status).toBe(200);
    await eventually(async () => (await credit(w, unknown())).status === 200, 2000, 'the passthrough mode to reach the wallet');
  });
});
