/** Worked examples of the admin API: the demo casino, studio and game. */

const created = '2026-11-21T20:40:00.000Z';

export const casinoBody = {
  name: 'Demo Casino',
  walletUrl: 'https://casino.example.com/relay-wallet',
  status: 'ACTIVE',
  refundOnCreditFail: true,
  creditOnDisconnect: false,
};

export const casino = { providerId: 'demo-casino', ...casinoBody, createdAt: created, updatedAt: created };

export const freeRoundsMode = { providerId: 'demo-casino', mode: 'managed' };

export const casinoSaved = {
  ...casino,
  // Placeholders: real values are random and appear only in the answer that generated them.
  walletSecret: 'EXAMPLE-wallet-secret-not-a-real-one',
  launchKey: 'EXAMPLE-launch-key-not-a-real-one-000000000',
};

export const gameProvider = {
  groupId: 'demo-studio',
  name: 'Demo Studio',
  status: 'ACTIVE',
  rateLimitPerSecond: null,
  launchEncryption: false,
  launchPublicKeyPem: null,
  createdAt: created,
  updatedAt: created,
};

export const tokenListed = { tokenId: '0b9e4c52-3a57-4f0e-8d8e-2f1f5d3c9a10', createdAt: created, revokedAt: null };

export const issuedToken = { tokenId: tokenListed.tokenId, token: 'grp_EXAMPLE-token-not-a-real-one' };

export const PUBLIC_KEY_PEM = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1f3QgZYQTQL8nH2LYZNK\nTNxjcZQrsTeKZaNSZo0duo07Lcl2S6Xk4TlL5Y2Xt7/QH/8Gr5iKx7SWWmSEttyp\nAdT6uGJHkBSQxh7xwBm2ER3JATfgIqccKBeGtcaxbywvNbfne8CGFqxKTN9eXIfR\ngWnJPOo6S4bJM1Bv0fvGHNZF9AiecuN4UTQneknI8tSBxYjx9Ppc22PXd2cDmczI\ng4qpUppEy1z7RS5ODMC+3ftfbPy03aJa0w4Y9DSn+gx2GeebSDBpw2nkEx72cxOV\nRu1FwvMIomQrXKnw76ftxLVhlg5Kj2290kE8Bmdze4Ux3ngfbsXaLWq7QWVpvXta\nrwIDAQAB\n-----END PUBLIC KEY-----\n\n";

export const launchKey = { groupId: 'demo-studio', publicKeyPem: PUBLIC_KEY_PEM, modulusLength: 2048, updatedAt: created };

export const gameBody = { name: 'Relay Dice', groupId: 'demo-studio', frontendUrl: 'https://game.example.com/play?skin=dark', status: 'ACTIVE' };

export const game = { gameId: 7001, ...gameBody, createdAt: created, updatedAt: created };

export const templateBody = {
  properties: [
    { name: 'theme', type: 'DROPDOWN', values: ['light', 'dark'], required: true, default: 'light' },
    { name: 'autoplay', type: 'BOOLEAN', required: false, default: true },
  ],
};

export const template = { gameId: 7001, ...templateBody, version: 1, createdAt: created, updatedAt: created };

export const casinoGameConfig = {
  providerId: 'demo-casino',
  gameId: 7001,
  values: { theme: 'dark', autoplay: true },
  overrides: ['theme'],
  templateVersion: 1,
  createdAt: created,
  updatedAt: created,
};

export const currencyBody = {
  minBet: 0.1,
  maxBet: 100,
  defaultBet: 1,
  betSuggestions: [0.5, 1, 2, 5],
  maxWin: 10000,
  isDefault: true,
};

export const currencyConfig = {
  id: '52',
  providerId: 'demo-casino',
  gameId: 7001,
  currency: 'EUR',
  ...currencyBody,
  minAutoCashout: null,
  maxAutoCashout: null,
  defaultAutoCashout: null,
  isRoundable: false,
  createdAt: created,
  updatedAt: created,
};
