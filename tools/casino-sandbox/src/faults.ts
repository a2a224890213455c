import { z } from 'zod';

/**
 * Scriptable misbehaviour of the sandbox casino: every answer a real casino can give that the
 * relay must map (docs/api/casino.json), plus the ambiguous ones (the money moved, the answer got lost).
 * `applyFirst` runs the real operation (money moves, idempotent result stored) before the fault
 * replaces the answer.
 */
const operation = z.enum(['balance', 'debit', 'credit', 'round-ended']);

export const faultMatchSchema = z.object({
  providerId: z.string().min(1).optional(),
  playerId: z.string().min(1).optional(),
  operation: operation.optional(),
});

export const faultSchema = z.discriminatedUnion('kind', [
  /** 400 {"error":"INSUFFICIENT_FUNDS"} whatever the balance. */
  z.object({ kind: z.literal('insufficientFunds') }),
  /** {"error":"TOKEN_EXPIRED"} with 401 (or the given 4xx status). */
  z.object({ kind: z.literal('tokenExpired'), status: z.number().int().min(400).max(499).optional() }),
  /** Any 4xx/5xx with {"error": error}; e.g. 403 or 500 for round-ended, 503 for a debit. */
  z.object({ kind: z.literal('error'), status: z.number().int().min(400).max(599), error: z.string().optional(), applyFirst: z.boolean().optional() }),
  /** 200 that is not a usable answer. */
  z.object({ kind: z.literal('malformed'), body: z.enum(['not-json', 'no-balance', 'negative-balance', 'empty']).optional(), applyFirst: z.boolean().optional() }),
  /** The balance as a numeric string: `value` verbatim, or the exact balance with `decimals` places. */
  z.object({ kind: z.literal('balanceAsString'), decimals: z.number().int().min(0).max(20).optional(), value: z.string().optional() }),
  /** The real answer with its username replaced: `value` verbatim (control characters too), or the player's wallet token. */
  z.object({ kind: z.literal('username'), value: z.string().optional(), walletToken: z.boolean().optional() }),
  /** Waits before answering; with applyFirst the money moves before the wait (a late answer). */
  z.object({ kind: z.literal('delay'), ms: z.number().int().min(0).max(600_000), applyFirst: z.boolean().optional() }),
  /** Destroys the connection without an answer; by default AFTER applying the movement. */
  z.object({ kind: z.literal('reset'), applyFirst: z.boolean().optional() }),
]);

export const setFaultSchema = z.object({
  match: faultMatchSchema.optional(),
  fault: faultSchema,
  times: z.number().int().positive().optional(),
});

export type FaultMatch = z.infer<typeof faultMatchSchema>;
export type Fault = z.infer<typeof faultSchema>;
export type SandboxOperation = z.infer<typeof operation>;

export interface ScriptedFault {
  id: number;
  match: FaultMatch;
  fault: Fault;
  /** Calls left; null while persistent. */
  remaining: number | null;
}

export interface CallFacts {
  providerId?: string;
  playerId?: string;
  operation: SandboxOperation;
}

export class FaultBook {
  private entries: ScriptedFault[] = [];
  private nextId = 1;

  /** The most recently set matching fault wins, so a one-off can sit on top of a persistent one. */
  set(match: FaultMatch, fault: Fault, times?: number): number {
    const id = this.nextId++;
    this.entries.push({ id, match: { ...match }, fault: faultSchema.parse(fault), remaining: times ?? null });
    return id;
  }

  /** Finds the fault for this call and uses up one of its calls. */
  take(call: CallFacts): Fault | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i];
      if (!fits(entry.match, call)) continue;
      if (entry.remaining !== null && --entry.remaining <= 0) this.entries.splice(i, 1);
      return entry.fault;
    }
    return undefined;
  }

  list(): ScriptedFault[] {
    return this.entries.map((e) => ({ ...e }));
  }

  remove(id: number): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.id !== id);
    return this.entries.length < before;
  }

  clear(): void {
    this.entries = [];
  }
}

function fits(match: FaultMatch, call: CallFacts): boolean {
  return (
    (match.operation === undefined || match.operation === call.operation) &&
    (match.providerId === undefined || match.providerId === call.providerId) &&
    (match.playerId === undefined || match.playerId === call.playerId)
  );
}
