import { z } from 'zod';
import type { SandboxCasino } from './casino';
import { setFaultSchema } from './faults';
import { createLaunchToken } from './launch-token';

/**
 * HTTP control API of the sandbox, so a separately running sandbox (the demo, a manual test) can
 * be scripted like the in-process one. Sandbox only: no authentication, bound to 127.0.0.1.
 */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

const playerSchema = z.object({
  providerId: z.string().min(1),
  playerId: z.string().min(1),
  walletToken: z.string().min(1),
  balance: z.union([z.number().finite().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/)]),
  username: z.string().optional(),
});
const balanceSchema = z.object({ balance: playerSchema.shape.balance });
const secretSchema = z.object({ providerId: z.string().min(1).optional(), secret: z.string().min(1).nullable() });
const launchSchema = z.object({
  launchKey: z.string().min(1),
  providerId: z.string().min(1),
  playerId: z.string().min(1),
  walletToken: z.string().min(1),
  exp: z.number().int().optional(),
  username: z.string().optional(),
  currency: z.string().optional(),
  gameId: z.union([z.number(), z.string()]).optional(),
  jti: z.string().optional(),
  claims: z.record(z.string(), z.unknown()).optional(),
});

const ok = (body: unknown, status = 200): ControlAnswer => ({ status, body });
const fail = (status: number, error: string, message?: string): ControlAnswer => ({ status, body: message ? { error, message } : { error } });

function parse<T>(schema: z.ZodType<T>, body: unknown): T | ControlAnswer {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return fail(400, 'BAD_REQUEST', `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

const isAnswer = (v: unknown): v is ControlAnswer => typeof v === 'object' && v !== null && 'status' in v && 'body' in v && typeof (v as ControlAnswer).status === 'number';
const q = (query: URLSearchParams, name: string) => query.get(name) ?? undefined;

export async function control(casino: SandboxCasino, method: string, path: string, query: URLSearchParams, body: unknown): Promise<ControlAnswer> {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent); // ['_control', ...]
  const route = `${method} /${parts.slice(1).join('/')}`;
  const player = parts[1] === 'players' && parts.length >= 4 ? { providerId: parts[2], playerId: parts[3] } : undefined;

  if (route === 'GET /health') return ok({ ok: true });
  if (route === 'POST /players') {
    const input = parse(playerSchema, body);
    return isAnswer(input) ? input : ok(casino.addPlayer(input), 201);
  }
  if (method === 'GET' && player && parts.length === 4) {
    const found = casino.getPlayer(player.providerId, player.playerId);
    return found ? ok(found) : fail(404, 'PLAYER_NOT_FOUND');
  }
  if (method === 'PUT' && player && parts[4] === 'balance' && parts.length === 5) {
    const input = parse(balanceSchema, body);
    if (isAnswer(input)) return input;
    const updated = casino.setBalance(player.providerId, player.playerId, input.balance);
    return updated ? ok(updated) : fail(404, 'PLAYER_NOT_FOUND');
  }
  if (route === 'GET /ledger') return ok({ players: casino.ledger({ providerId: q(query, 'providerId'), playerId: q(query, 'playerId') }) });
  if (route === 'GET /journal') {
    const entries = casino.journal({ providerId: q(query, 'providerId'), playerId: q(query, 'playerId'), transactionId: q(query, 'transactionId') });
    return ok({ count: entries.length, entries });
  }
  if (route === 'GET /calls') {
    const filter = { operation: q(query, 'operation'), providerId: q(query, 'providerId'), playerId: q(query, 'playerId'), transactionId: q(query, 'transactionId'), roundId: q(query, 'roundId') };
    const calls = casino.calls(filter);
    return ok({ count: calls.length, calls });
  }
  if (route === 'GET /round-ended') {
    const notices = casino.roundEnded({ providerId: q(query, 'providerId'), roundId: q(query, 'roundId') });
    return ok({ count: notices.length, notifications: notices });
  }
  if (route === 'GET /faults') return ok({ faults: casino.faults() });
  if (route === 'POST /faults') {
    const input = parse(setFaultSchema, body);
    return isAnswer(input) ? input : ok({ id: casino.setFault(input.match ?? {}, input.fault, input.times) }, 201);
  }
  if (route === 'DELETE /faults') {
    casino.clearFaults();
    return ok({ ok: true });
  }
  if (method === 'DELETE' && parts[1] === 'faults' && parts.length === 3) {
    return casino.removeFault(Number(parts[2])) ? ok({ ok: true }) : fail(404, 'FAULT_NOT_FOUND');
  }
  if (route === 'POST /secrets') {
    const input = parse(secretSchema, body);
    if (isAnswer(input)) return input;
    if (input.providerId === undefined) casino.setDefaultSecret(input.secret);
    else casino.setSecret(input.providerId, input.secret);
    return ok({ ok: true });
  }
  if (route === 'POST /launch-token') {
    const input = parse(launchSchema, body);
    if (isAnswer(input)) return input;
    try {
      return ok({ token: await createLaunchToken(input) });
    } catch (err) {
      return fail(400, 'BAD_REQUEST', (err as Error).message);
    }
  }
  if (route === 'POST /reset') {
    casino.reset();
    return ok({ ok: true });
  }
  return fail(404, 'NOT_FOUND');
}
