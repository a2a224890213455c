export * from './protocol';
export * from './signature';
export { interpretCasinoAnswer, transportReason, AUDIT_BODY_BYTES, type CasinoAccount, type CasinoAnswer, type CasinoFailure, type CasinoResult } from './answer';
export { CasinoClient, type CasinoClientOptions } from './client';
export { CasinoAddressPolicy } from './address-policy';
export { casinoOutcome, CASINO_OUTCOMES, type CasinoOutcome } from './client';
export { createCasinoClient } from './runtime-client';
