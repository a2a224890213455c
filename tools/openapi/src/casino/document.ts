import { z } from 'zod';
import { SIGNATURE_MAX_SKEW_SECONDS, signCasinoRequest } from '@relay/shared';
import { requestSchemas } from '@relay/casino-sandbox';
import { CASH_IN_REASONS } from '@relay/wallet';
import { jsonSchema, type JsonSchema } from '../schema';
import { VERSION } from '../version';
import { CASINO_DESCRIPTION, OPERATION_TEXT } from './text';

/**
 * The casino wallet protocol: what every casino implements and the relay calls. The request
 * bodies are the ones the sandbox casino (tools/casino-sandbox) checks every relay call against,
 * with the player's wallet token described (the sandbox leaves it to its own token check).
 */
const walletToken = z.string().meta({ description: "The player's token at this casino, from the launch token; the relay sends it back unchanged and never shows it anywhere." });

const bodies = {
  balance: requestSchemas.balance.extend({ walletToken }),
  debit: requestSchemas.debit.extend({ walletToken }),
  credit: requestSchemas.credit.extend({ walletToken, reason: z.enum(CASH_IN_REASONS) }),
  'round-ended': requestSchemas['round-ended'],
} as const;

const accountAnswer = z
  .object({
    balance: z.union([z.number().min(0), z.string().regex(/^\d+(\.\d+)?$/)]).meta({
      description: 'The balance after the operation: a JSON number or a numeric string, any number of decimals; the relay rounds it half-up to cents.',
    }),
    username: z.string().optional().meta({ description: "The player's display name, when the casino has one." }),
  })
  .meta({ id: 'AccountAnswer' });

const refusal = z
  .object({ error: z.string().meta({ description: '`TOKEN_EXPIRED` when the wallet token is no longer valid; any other code (e.g. `INSUFFICIENT_FUNDS`) otherwise.' }), message: z.string().optional() })
  .meta({ id: 'CasinoRefusal' });

const SAMPLE = {
  playerId: 'player-1842',
  walletToken: 'wt-7c1f0a9e',
  sessionId: '3f2a9c1e-5b7d-4e21-9a0f-6c8d2e4b1a77',
  gameId: 7001,
  currency: 'EUR',
};

const EXAMPLES: Record<keyof typeof bodies, unknown> = {
  balance: { providerId: 'demo-casino', ...SAMPLE },
  debit: { providerId: 'demo-casino', ...SAMPLE, roundId: 'r-20261121-000042', transactionId: 'bet-r-20261121-000042', amount: 2.5 },
  credit: {
    providerId: 'demo-casino', ...SAMPLE, roundId: 'r-20261121-000042', transactionId: 'win-r-20261121-000042', amount: 4.75,
    reason: 'NORMAL_WIN', appliedMultiplier: 1.9, betAmount: 2.5, previousTransactionId: 'bet-r-20261121-000042', isRetry: false,
  },
  'round-ended': { providerId: 'demo-casino', groupId: 'demo-studio', roundId: 'r-20261121-000042' },
};

/** A signing example anyone can check: the signature is computed here, with the documented inputs. */
export const SIGNING_EXAMPLE = (() => {
  const secret = 'example-wallet-secret-0123456789';
  const timestamp = 1795812476;
  const body = JSON.stringify(EXAMPLES.debit);
  return { secret, timestamp, body, signature: signCasinoRequest(secret, timestamp, body) };
})();

const headers = [
  {
    name: 'X-Relay-Timestamp', in: 'header', required: true,
    description: `Unix seconds when the relay signed the call. A casino may refuse one more than ${SIGNATURE_MAX_SKEW_SECONDS} seconds away from its clock.`,
    schema: { type: 'string', pattern: '^\\d{1,12}$' }, example: String(SIGNING_EXAMPLE.timestamp),
  },
  {
    name: 'X-Relay-Signature', in: 'header', required: true,
    description: '`v1=` and the lowercase hex HMAC-SHA256, keyed with the casino\'s wallet secret, of the timestamp, a `.`, and the exact body bytes received.',
    schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}$' }, example: SIGNING_EXAMPLE.signature,
  },
];

export function casinoDocument(): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {};
  const accountRef = jsonSchema(accountAnswer, 'input', schemas);
  const refusalRef = jsonSchema(refusal, 'input', schemas);
  const paths: Record<string, unknown> = {};
  for (const operation of Object.keys(bodies) as (keyof typeof bodies)[]) {
    const text = OPERATION_TEXT[operation];
    const success =
      operation === 'round-ended'
        ? { description: 'Any 2xx answer is success; the body is not read.', content: { 'application/json': { schema: {} } } }
        : { description: 'The account after the operation.', content: { 'application/json': { schema: accountRef, example: { balance: operation === 'credit' ? '102.25' : 97.5, username: 'Lucky Lou' } } } };
    paths[`/${operation}`] = {
      post: {
        operationId: operation === 'round-ended' ? 'roundEnded' : operation,
        summary: text.summary,
        description: text.description,
        tags: ['Wallet protocol'],
        parameters: headers,
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(bodies[operation], 'input', schemas), example: EXAMPLES[operation] } } },
        responses: {
          200: success,
          '4XX': { description: text.refused, content: { 'application/json': { schema: refusalRef, example: { error: text.refusalExample } } } },
          '5XX': { description: text.failed },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Game Relay: casino wallet protocol', version: VERSION, description: CASINO_DESCRIPTION(SIGNING_EXAMPLE) },
    servers: [
      {
        url: 'https://{walletHost}{walletPath}',
        description: "The casino's wallet address (its `walletUrl`, registered with the platform team); the relay appends `/{operation}`.",
        variables: { walletHost: { default: 'casino.example.com' }, walletPath: { default: '/relay-wallet' } },
      },
    ],
    tags: [{ name: 'Wallet protocol', description: 'The four calls a casino answers.' }],
    paths,
    components: { schemas },
  };
}
