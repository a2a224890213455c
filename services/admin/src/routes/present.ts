import type { CasinoRecord } from '../data/casinos';
import type { GameProviderRecord, ProviderTokenRecord } from '../data/gameProviders';
import type { GameRecord } from '../data/games';
import type { TemplateRecord } from '../data/gameConfigs';
import type { CurrencyConfigRecord } from '../data/currencyConfigs';
import type { CasinoGameConfigView } from '../domain/casinoGameConfigs';
import type { GeneratedSecrets } from '../domain/casinos';

/**
 * The response shapes of the admin API. Each presenter lists its fields one by one: a column added
 * to a record later (a sealed secret, say) never reaches a response by accident.
 */
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function presentCasino(c: CasinoRecord, generated: GeneratedSecrets = {}) {
  return {
    providerId: c.providerId,
    name: c.name,
    walletUrl: c.walletUrl,
    status: c.status,
    refundOnCreditFail: c.refundOnCreditFail,
    creditOnDisconnect: c.creditOnDisconnect,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    // Shown once, only when this request generated them (docs/api/admin.json).
    ...(generated.walletSecret !== undefined ? { walletSecret: generated.walletSecret } : {}),
    ...(generated.launchKey !== undefined ? { launchKey: generated.launchKey } : {}),
  };
}

export function presentGameProvider(g: GameProviderRecord, tokens?: ProviderTokenRecord[]) {
  return {
    groupId: g.groupId,
    name: g.name,
    status: g.status,
    rateLimitPerSecond: g.rateLimitPerSecond,
    launchEncryption: g.launchPublicKeyPem !== null,
    launchPublicKeyPem: g.launchPublicKeyPem,
    createdAt: iso(g.createdAt),
    updatedAt: iso(g.updatedAt),
    ...(tokens ? { tokens: tokens.map((t) => ({ tokenId: t.tokenId, createdAt: iso(t.createdAt), revokedAt: iso(t.revokedAt) })) } : {}),
  };
}

export function presentGame(g: GameRecord) {
  return {
    gameId: g.gameId,
    name: g.name,
    groupId: g.groupId,
    frontendUrl: g.frontendUrl,
    status: g.status,
    createdAt: iso(g.createdAt),
    updatedAt: iso(g.updatedAt),
  };
}

export function presentTemplate(t: TemplateRecord) {
  return { gameId: t.gameId, properties: t.properties, version: t.version, createdAt: iso(t.createdAt), updatedAt: iso(t.updatedAt) };
}

export function presentCasinoGameConfig(c: CasinoGameConfigView) {
  return {
    providerId: c.providerId,
    gameId: c.gameId,
    values: c.values,
    overrides: c.overrides,
    templateVersion: c.templateVersion,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

export function presentCurrencyConfig(c: CurrencyConfigRecord) {
  return {
    id: c.id,
    providerId: c.providerId,
    gameId: c.gameId,
    currency: c.currency,
    minBet: c.minBet,
    maxBet: c.maxBet,
    defaultBet: c.defaultBet,
    betSuggestions: c.betSuggestions,
    maxWin: c.maxWin,
    minAutoCashout: c.minAutoCashout,
    maxAutoCashout: c.maxAutoCashout,
    defaultAutoCashout: c.defaultAutoCashout,
    isRoundable: c.isRoundable,
    isDefault: c.isDefault,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}
