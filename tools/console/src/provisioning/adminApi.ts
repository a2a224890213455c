import { ADMIN_API, requestAt, request, type Envelope, type Scope } from '../lib/api';

/**
 * The provisioning screens' calls: the platform admin API (/admin/v1) for casinos, game providers,
 * games and their configs, and the back office (/backoffice/v1) for accounts and casino API
 * tokens. Both take the person's own session; the API refuses anyone but a platform admin.
 */
export const admin = {
  get: <T, M = PageMeta>(path: string) => requestAt<T, M>(ADMIN_API, 'GET', path),
  put: <T>(path: string, body: unknown) => requestAt<T>(ADMIN_API, 'PUT', path, body),
  post: <T>(path: string, body?: unknown) => requestAt<T>(ADMIN_API, 'POST', path, body),
  delete: (path: string) => requestAt<null>(ADMIN_API, 'DELETE', path),
};
export const backoffice = {
  get: <T, M = PageMeta>(path: string) => request<T, M>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body),
  delete: (path: string) => request<null>('DELETE', path),
};
export type { Envelope };

export const enc = encodeURIComponent;

export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export type Status = 'ACTIVE' | 'INACTIVE';

export interface Casino {
  providerId: string;
  name: string;
  walletUrl: string;
  status: Status;
  refundOnCreditFail: boolean;
  creditOnDisconnect: boolean;
  createdAt: string | null;
  updatedAt: string | null;
  /** Only in the answer of the save that generated them. */
  walletSecret?: string;
  launchKey?: string;
}

export interface GameProvider {
  groupId: string;
  name: string;
  status: Status;
  rateLimitPerSecond: number | null;
  launchEncryption: boolean;
  launchPublicKeyPem: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  tokens?: { tokenId: string; createdAt: string | null; revokedAt: string | null }[];
}

export interface Game {
  gameId: number;
  name: string;
  groupId: string;
  frontendUrl: string;
  status: Status;
  createdAt: string | null;
  updatedAt: string | null;
}

export const PROPERTY_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DROPDOWN'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export type ConfigValue = string | number | boolean;

export interface TemplateProperty {
  name: string;
  type: PropertyType;
  values?: (string | number)[];
  required: boolean;
  default?: ConfigValue;
}

export interface Template {
  gameId: number;
  properties: TemplateProperty[];
  version: number;
}

/** TEMPLATE_CHANGE_REJECTED's data: each casino whose config the change would break, and why. */
export interface BrokenCasinos {
  providerIds: string[];
  casinos: { providerId: string; problems: { path: string; message: string }[] }[];
}

export interface CasinoGameConfig {
  providerId: string;
  gameId: number;
  values: Record<string, ConfigValue>;
  overrides: string[];
  templateVersion: number | null;
}

export interface CurrencyConfig {
  id: string;
  providerId: string;
  gameId: number;
  currency: string;
  minBet: number;
  maxBet: number;
  defaultBet: number;
  betSuggestions: number[];
  maxWin: number;
  minAutoCashout: number | null;
  maxAutoCashout: number | null;
  defaultAutoCashout: number | null;
  isRoundable: boolean;
  isDefault: boolean;
}

export interface AccountRow {
  accountId: string;
  email: string;
  displayName: string;
  role: 'admin' | 'support' | 'finance';
  scope: Scope;
  status: 'ACTIVE' | 'DISABLED';
  secondFactorEnrolled: boolean;
  createdAt: string;
}

export interface CasinoToken {
  tokenId: string;
  providerId: string;
  name: string;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** Only in the answer that issued it. */
  token?: string;
}
