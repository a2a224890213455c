import { z } from 'zod';
import { timestamp } from '../schema';

/**
 * What the admin routes answer (services/admin/src/routes/present.ts lists each field by hand, so a
 * stored secret never reaches an answer). The contract tests hold every answer against these.
 */
const status = z.enum(['ACTIVE', 'INACTIVE']);
const amount = z.number().meta({ description: 'A JSON number with at most 2 decimals.' });

export const casino = z
  .strictObject({
    providerId: z.string(),
    name: z.string(),
    walletUrl: z.string().meta({ description: 'Where the relay calls the casino wallet protocol.' }),
    status,
    refundOnCreditFail: z.boolean(),
    creditOnDisconnect: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
    walletSecret: z.string().optional().meta({ description: 'Only in the answer of the PUT that generated it: shown once, then never again.' }),
    launchKey: z.string().optional().meta({ description: 'Only in the answer of the PUT that generated it (32 bytes, base64url): shown once, then never again.' }),
  })
  .meta({ id: 'Casino' });

export const freeRoundsMode = z
  .strictObject({ providerId: z.string(), mode: z.enum(['passthrough', 'managed']) })
  .meta({ id: 'FreeRoundsMode' });

export const gameProvider = z
  .strictObject({
    groupId: z.string(),
    name: z.string(),
    status,
    rateLimitPerSecond: z.number().int().nullable().meta({ description: 'Requests per second across all gateways; null: the platform default.' }),
    launchEncryption: z.boolean().meta({ description: 'True when launch parameters are sealed with the published public key.' }),
    launchPublicKeyPem: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    tokens: z
      .array(z.strictObject({ tokenId: z.string(), createdAt: timestamp, revokedAt: timestamp.nullable() }))
      .optional()
      .meta({ description: 'On GET: every token ever issued, by id (the token values are never shown again).' }),
  })
  .meta({ id: 'GameProvider' });

export const issuedToken = z
  .strictObject({
    tokenId: z.string(),
    token: z.string().meta({ description: 'The bearer token of the game routes. Shown only in this answer; stored only as a SHA-256 hash.' }),
  })
  .meta({ id: 'IssuedToken' });

export const launchKey = z
  .strictObject({ groupId: z.string(), publicKeyPem: z.string(), modulusLength: z.number().int(), updatedAt: timestamp })
  .meta({ id: 'LaunchEncryptionKey' });

export const game = z
  .strictObject({ gameId: z.number().int(), name: z.string(), groupId: z.string(), frontendUrl: z.string(), status, createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: 'Game' });

const configValue = z.union([z.string(), z.number(), z.boolean()]);

export const template = z
  .strictObject({
    gameId: z.number().int(),
    properties: z.array(
      z.strictObject({
        name: z.string(),
        type: z.enum(['STRING', 'NUMBER', 'BOOLEAN', 'DROPDOWN']),
        values: z.array(z.union([z.string(), z.number()])).optional(),
        required: z.boolean(),
        default: configValue.optional(),
      }),
    ),
    version: z.number().int().meta({ description: 'Raised by every accepted change.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'ConfigTemplate' });

export const casinoGameConfig = z
  .strictObject({
    providerId: z.string(),
    gameId: z.number().int(),
    values: z.record(z.string(), z.unknown()).meta({ description: "Complete: the template's defaults with the casino's overrides." }),
    overrides: z.array(z.string()),
    templateVersion: z.number().int().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'CasinoGameConfig' });

export const currencyConfig = z
  .strictObject({
    id: z.string(),
    providerId: z.string(),
    gameId: z.number().int(),
    currency: z.string(),
    minBet: amount,
    maxBet: amount,
    defaultBet: amount,
    betSuggestions: z.array(amount),
    maxWin: amount,
    minAutoCashout: z.number().nullable(),
    maxAutoCashout: z.number().nullable(),
    defaultAutoCashout: z.number().nullable(),
    isRoundable: z.boolean(),
    isDefault: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'AdminCurrencyConfig' });
