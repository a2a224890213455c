export * from './protocol';
export * from './signature';
export { interpretCasinoAnswer, AUDIT_BODY_BYTES, type CasinoAccount, type CasinoAnswer, type CasinoFailure, type CasinoResult } from './answer';
export { CasinoClient, type CasinoClientOptions } from './client';
