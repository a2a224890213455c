import { z } from 'zod';
import {
  casinoBody, casinoGamePath, casinoPath, configBody, freeRoundsModeBody, currencyBody, currencyPath, gameBody, gameList, gamePath, groupBody, groupPath, keyBody, pagination,
  templateBody, tokenPath,
} from '@relay/admin';
import type { ErrorCode } from '@relay/shared';
import { ApiDocument, type Operation } from '../document';
import { envelope } from '../envelope';
import type { ErrorTable } from '../errors';
import { VERSION } from '../version';
import * as ex from './examples';
import * as res from './responses';

const DESCRIPTION = `The platform team's interface: casinos, game providers and their tokens, games, configuration templates,
and each casino's game settings and bet limits. Every route takes \`Authorization: Bearer <ADMIN_TOKEN>\`; a
game provider token is refused here.

Every \`PUT\` creates or replaces and answers the stored object; a \`DELETE\` answers \`data: null\`; a route
naming a record that does not exist answers \`404\` with a code naming what is missing. Answers are envelopes
\`{"statusCode", "message", "data"}\`; errors \`{"statusCode", "message", "error", "data", "details"?}\`.

**Secrets are shown once.** A casino's \`walletSecret\` and \`launchKey\` are generated when a \`PUT\` does not
supply them and appear in that answer only; a game provider token appears only in the answer that issued
it and is stored as a hash. No other answer, and no log line, ever carries them: keep them when shown.

A change takes effect on every game route within one second, whatever caches sit between.`;

type AdminOperation = Omit<Operation, 'errorStyle' | 'tag' | 'errors' | 'success'> & {
  tag: 'Casinos' | 'Game providers' | 'Games' | 'Casino games';
  ok: { status?: number; message: string; data: z.ZodType | null; example: unknown; paginated?: boolean };
  /** Codes beyond the ones every admin route can answer, by status. */
  errors?: Partial<Record<number, ErrorCode[]>>;
};

const NOT_FOUND_TEXT = 'A record the route names does not exist; the code names which.';

function admin(op: AdminOperation): Operation {
  const status = op.ok.status ?? 200;
  const table: ErrorTable = {
    400: { codes: ['Bad Request', ...(op.errors?.[400] ?? [])], description: 'The path or body is not valid; `details` names each field.' },
    403: {
      codes: ['AUTHENTICATION_FAILED', 'PERMISSION_DENIED', 'CSRF_TOKEN_INVALID'],
      description: 'The admin token is missing or wrong (`AUTHENTICATION_FAILED`); a signed-in back-office account that is not a platform admin (`PERMISSION_DENIED`); a write from a back-office session without its `X-CSRF-Token` (`CSRF_TOKEN_INVALID`).',
    },
    500: { codes: ['INTERNAL_ERROR'], description: 'An unexpected failure (never with details); repeat the identical request.' },
    503: { codes: ['SERVICE_UNAVAILABLE'], description: 'The admin service or its database is briefly unavailable; repeat after `Retry-After`.' },
  };
  if (op.body) {
    table[413] = { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is larger than 64 KiB.' };
    table[408] = { codes: ['REQUEST_TIMEOUT'], description: 'The body did not arrive within the gateway\'s body time-out; nothing was done.' };
  }
  table[429] = { codes: ['RATE_LIMITED'], description: 'The admin token already holds its whole share of the relay\'s connections to the admin service; wait `Retry-After` seconds.' };
  if (op.errors?.[404]) table[404] = { codes: op.errors[404], description: NOT_FOUND_TEXT };
  if (op.errors?.[409]) table[409] = { codes: op.errors[409], description: 'The change would break what exists; `data` names each casino concerned.' };
  const data = op.ok.data ?? z.null();
  const example = { statusCode: status, message: op.ok.message, data: op.ok.example, ...(op.ok.paginated ? { meta: { total: 1, page: 1, limit: 100, totalPages: 1 } } : {}) };
  return {
    ...op,
    success: { status, description: `Message \`${op.ok.message}\`.`, schema: envelope(data, op.ok.paginated ?? false, status), example },
    errorStyle: 'envelope',
    errors: table,
  };
}

const ops: AdminOperation[] = [
  {
    method: 'put', path: '/admin/v1/casinos/{providerId}', operationId: 'putCasino', tag: 'Casinos', summary: 'Create or replace a casino',
    description: 'A `walletSecret` or `launchKey` not supplied is generated and returned once, in this answer only. Supplying one replaces it (rotation).',
    path_: casinoPath, body: { schema: casinoBody, example: ex.casinoBody },
    ok: { message: 'Casino saved', data: res.casino, example: ex.casinoSaved },
  },
  {
    method: 'get', path: '/admin/v1/casinos', operationId: 'listCasinos', tag: 'Casinos', summary: 'List casinos', description: 'Without secrets.',
    query: pagination, ok: { message: 'Casinos fetched successfully', data: z.array(res.casino), example: [ex.casino], paginated: true },
  },
  {
    method: 'get', path: '/admin/v1/casinos/{providerId}', operationId: 'getCasino', tag: 'Casinos', summary: 'One casino', description: 'Without secrets.',
    path_: casinoPath, ok: { message: 'Casino fetched successfully', data: res.casino, example: ex.casino }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'delete', path: '/admin/v1/casinos/{providerId}', operationId: 'deleteCasino', tag: 'Casinos', summary: 'Remove a casino',
    description: 'Later calls naming it get `PROVIDER_NOT_FOUND`; its rounds and transactions stay in reporting. Its casino API tokens are revoked and its casino-scoped back-office accounts disabled (their sessions end), so a casino made again under the same id is not reached by them; an admin may enable such an account again.',
    path_: casinoPath, ok: { message: 'Casino deleted', data: null, example: null }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/casinos/{providerId}/free-rounds', operationId: 'putFreeRoundsMode', tag: 'Casinos', summary: "Set a casino's free-rounds mode",
    description:
      "`passthrough` (every casino's default) relays a freebet credit's `awardId` unchecked, as the spec has it. `managed` checks every freebet credit (`FREEBET_WIN`, `FREEBET_LOST`, `DISCONNECT_FREEBET_WIN`) against the casino's awards and consumes one round per new `transactionId`; a credit that fails the check is refused with `400` and a `FREEBET_*` code (docs/integrating-a-casino.md, \"Free rounds (awards)\"). Applies to the next freebet credit; the casino `PUT` body is unchanged. Audited.",
    path_: casinoPath, body: { schema: freeRoundsModeBody, example: { mode: 'managed' } },
    ok: { message: 'Free-rounds mode saved', data: res.freeRoundsMode, example: ex.freeRoundsMode }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/admin/v1/casinos/{providerId}/free-rounds', operationId: 'getFreeRoundsMode', tag: 'Casinos', summary: "A casino's free-rounds mode",
    description: '`passthrough` unless it was set.',
    path_: casinoPath, ok: { message: 'Free-rounds mode fetched successfully', data: res.freeRoundsMode, example: ex.freeRoundsMode }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/casinos/{providerId}/games/{gameId}/config', operationId: 'putCasinoGameConfig', tag: 'Casino games',
    summary: "Set a casino's settings of a game",
    description: "`values` are the casino's overrides of the game's template. `INVALID_GAME_CONFIG` for an unknown property, a wrong type, a dropdown value not allowed, or a required property with no default left unanswered.",
    path_: casinoGamePath, body: { schema: configBody, example: { values: { theme: 'dark' } } },
    ok: { message: 'Game config saved', data: res.casinoGameConfig, example: ex.casinoGameConfig },
    errors: { 400: ['INVALID_GAME_CONFIG'], 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND', 'TEMPLATE_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/admin/v1/casinos/{providerId}/games/{gameId}/config', operationId: 'getCasinoGameConfig', tag: 'Casino games',
    summary: "A casino's settings of a game", description: 'The complete values and which of them the casino set.',
    path_: casinoGamePath, ok: { message: 'Game config fetched successfully', data: res.casinoGameConfig, example: ex.casinoGameConfig },
    errors: { 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND', 'GAME_CONFIG_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/admin/v1/casinos/{providerId}/games/{gameId}/currencies', operationId: 'listCurrencyConfigs', tag: 'Casino games',
    summary: "A casino's bet limits of a game", description: 'One entry per configured currency.',
    path_: casinoGamePath, ok: { message: 'Currency configs fetched successfully', data: z.array(res.currencyConfig), example: [ex.currencyConfig] },
    errors: { 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/casinos/{providerId}/games/{gameId}/currencies/{currency}', operationId: 'putCurrencyConfig', tag: 'Casino games',
    summary: 'Set the bet limits of one currency',
    description: 'Refused unless `0 <= minBet <= defaultBet <= maxBet`, every suggestion lies within `[minBet, maxBet]`, amounts have at most 2 decimals and `minAutoCashout <= defaultAutoCashout <= maxAutoCashout`. `isDefault` clears the flag on the casino\'s other currencies of the game.',
    path_: currencyPath, body: { schema: currencyBody, example: ex.currencyBody },
    ok: { message: 'Currency config saved', data: res.currencyConfig, example: ex.currencyConfig }, errors: { 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND'] },
  },
  {
    method: 'delete', path: '/admin/v1/casinos/{providerId}/games/{gameId}/currencies/{currency}', operationId: 'deleteCurrencyConfig', tag: 'Casino games',
    summary: 'Remove the bet limits of one currency', description: 'Games no longer see the currency in the catalog.',
    path_: currencyPath, ok: { message: 'Currency config deleted', data: null, example: null }, errors: { 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND', 'CURRENCY_CONFIG_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/game-providers/{groupId}', operationId: 'putGameProvider', tag: 'Game providers', summary: 'Create or replace a game provider',
    description: 'An inactive game provider is refused on every game route (`GROUP_NOT_ACTIVE`). `rateLimitPerSecond` overrides the platform default for this provider.',
    path_: groupPath, body: { schema: groupBody, example: { name: 'Demo Studio', status: 'ACTIVE' } },
    ok: { message: 'Game provider saved', data: res.gameProvider, example: ex.gameProvider },
  },
  {
    method: 'get', path: '/admin/v1/game-providers', operationId: 'listGameProviders', tag: 'Game providers', summary: 'List game providers',
    description: 'Oldest first, without their tokens.',
    query: pagination, ok: { message: 'Game providers fetched successfully', data: z.array(res.gameProvider), example: [ex.gameProvider], paginated: true },
  },
  {
    method: 'get', path: '/admin/v1/game-providers/{groupId}', operationId: 'getGameProvider', tag: 'Game providers', summary: 'One game provider with its tokens',
    description: 'Tokens are listed by id with their issue and revocation times, never by value.',
    path_: groupPath, ok: { message: 'Game provider fetched successfully', data: res.gameProvider, example: { ...ex.gameProvider, tokens: [ex.tokenListed] } },
    errors: { 404: ['GROUP_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/admin/v1/game-providers/{groupId}/tokens', operationId: 'issueProviderToken', tag: 'Game providers', summary: 'Issue a game provider token',
    description: 'The token is in this answer only; hand it to the studio\'s backend over a safe channel. Several tokens may be live at once (rotation: issue, deploy, revoke the old one).',
    path_: groupPath, ok: { status: 201, message: 'Game provider token created; it is shown only in this response', data: res.issuedToken, example: ex.issuedToken },
    errors: { 404: ['GROUP_NOT_FOUND'] },
  },
  {
    method: 'delete', path: '/admin/v1/game-providers/{groupId}/tokens/{tokenId}', operationId: 'revokeProviderToken', tag: 'Game providers', summary: 'Revoke a token',
    description: 'Refused by every gateway within one second.',
    path_: tokenPath, ok: { message: 'Game provider token revoked', data: null, example: null }, errors: { 404: ['GROUP_NOT_FOUND', 'TOKEN_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/game-providers/{groupId}/launch-encryption-key', operationId: 'putLaunchEncryptionKey', tag: 'Game providers',
    summary: 'Publish the key that seals launch parameters',
    description: 'An RSA public key of 2048 bits or more, as PEM (`BEGIN PUBLIC KEY`); text containing `PRIVATE KEY` is refused. From then on the launch forwards parameters sealed in one `payload` (JWE, RSA-OAEP-256, A256GCM). A new key replaces the previous one.',
    path_: groupPath, body: { schema: keyBody, example: { publicKeyPem: ex.PUBLIC_KEY_PEM } },
    ok: { message: 'Launch encryption key saved', data: res.launchKey, example: ex.launchKey }, errors: { 400: ['INVALID_PUBLIC_KEY'], 404: ['GROUP_NOT_FOUND'] },
  },
  {
    method: 'delete', path: '/admin/v1/game-providers/{groupId}/launch-encryption-key', operationId: 'deleteLaunchEncryptionKey', tag: 'Game providers',
    summary: 'Stop sealing launch parameters', description: 'Parameters are forwarded in the clear again.',
    path_: groupPath, ok: { message: 'Launch encryption key removed', data: null, example: null }, errors: { 404: ['GROUP_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/games/{gameId}', operationId: 'putGame', tag: 'Games', summary: 'Create or replace a game',
    description: "`frontendUrl` is where launches send the player (absolute http(s); its own query parameters are kept and win a clash). The game belongs to the game provider `groupId`.",
    path_: gamePath, body: { schema: gameBody, example: ex.gameBody }, ok: { message: 'Game saved', data: res.game, example: ex.game }, errors: { 404: ['GROUP_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/admin/v1/games', operationId: 'listGames', tag: 'Games', summary: 'List games',
    description: 'By game id; with `groupId`, one game provider\'s games only.',
    query: gameList, ok: { message: 'Games fetched successfully', data: z.array(res.game), example: [ex.game], paginated: true },
  },
  {
    method: 'get', path: '/admin/v1/games/{gameId}', operationId: 'getGame', tag: 'Games', summary: 'One game', description: 'As stored.',
    path_: gamePath, ok: { message: 'Game fetched successfully', data: res.game, example: ex.game }, errors: { 404: ['GAME_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/admin/v1/games/{gameId}/config-template', operationId: 'putConfigTemplate', tag: 'Games', summary: "Set a game's configuration template",
    description: 'The properties a casino may set for this game. Refused (`400`) for a reserved name, an unknown type, a dropdown without values or a default of the wrong type; refused (`409 TEMPLATE_CHANGE_REJECTED`, `data` naming each casino) when a casino\'s existing config would break.',
    path_: gamePath, body: { schema: templateBody, example: ex.templateBody }, ok: { message: 'Config template saved', data: res.template, example: ex.template },
    errors: { 404: ['GAME_NOT_FOUND'], 409: ['TEMPLATE_CHANGE_REJECTED'] },
  },
  {
    method: 'get', path: '/admin/v1/games/{gameId}/config-template', operationId: 'getConfigTemplate', tag: 'Games', summary: "A game's configuration template",
    description: 'With its version.', path_: gamePath, ok: { message: 'Config template fetched successfully', data: res.template, example: ex.template },
    errors: { 404: ['GAME_NOT_FOUND', 'TEMPLATE_NOT_FOUND'] },
  },
];

export function adminDocument(): Record<string, unknown> {
  const doc = new ApiDocument(
    { title: 'Game Relay: admin API', version: VERSION, description: DESCRIPTION },
    {
      servers: [{ url: '/', description: 'The gateway this reference is served from' }],
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The platform admin token (`ADMIN_TOKEN`).' } },
      security: [{ adminToken: [] }],
      tags: [
        { name: 'Casinos', description: 'Operators whose wallets the relay calls.' },
        { name: 'Game providers', description: 'Studios, their tokens and their launch encryption key.' },
        { name: 'Games', description: 'Games and their configuration templates.' },
        { name: 'Casino games', description: "A casino's settings and bet limits of a game." },
      ],
    },
  );
  for (const op of ops) doc.add(admin(op));
  return doc.toJSON();
}
