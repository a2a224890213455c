export { startCasinoSandbox, CasinoSandbox, type CasinoSandboxOptions } from './sandbox';
export { SandboxCasino, type CallRecord, type CallFilter, type Outcome, type RoundEndedNotice, type SandboxCasinoOptions } from './casino';
export { type Fault, type FaultMatch, type ScriptedFault, type SandboxOperation, faultSchema, setFaultSchema } from './faults';
export { type PlayerInput, type PlayerView, type JournalEntry, type MoneyOperation, type WalletAnswer } from './ledger';
export { createLaunchToken, type LaunchTokenOptions } from './launch-token';
export { signCasinoRequest, verifyCasinoSignature } from '@relay/shared';
export { Lobby, lobbyConfigSchema, type LobbyConfig, type LobbyConfigInput } from './lobby';
export { SANDBOX_BREAKS, parseSandboxBreaks, isSandboxBreak, type SandboxBreak } from './breaks';
export { requestSchemas } from './protocol';
