export { certifyCasino, MIN_FUNDED_BALANCE, type CheckReport, type Report, type BalanceNote } from './certify';
export { CHECKS, REQUIRED_CHECK_IDS, type Check, type CheckStatus } from './checks';
export { configSchema, loadConfig, parseConfig, SetupError, type CertifyConfig, type ConfigInput } from './config';
export { reportJson, reportJunit, reportTable } from './report';
export { main, USAGE } from './cli';
