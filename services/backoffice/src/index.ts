import { listen, type Runtime, type RunningServer } from '@relay/shared';
import { createBackofficeApp } from './app';

export { createBackofficeApp, operatorSessions } from './app';
export { currentCode } from './domain/totp';

export async function startBackoffice(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  return { server: await listen(createBackofficeApp(rt), port, rt.config.SERVICE_HOST) };
}

/** The route schemas, for the API reference (tools/openapi): the document is generated from these. */
export { scope, accountBody, accountPath, accountChange } from './routes/accounts';
export { signInBody, secondFactorBody } from './routes/auth';
export { auditFilter, AUDIT_CSV_COLUMNS } from './routes/audit';
export { casinoPath, tokenPath, tokenBody } from './routes/casinoTokens';
export { pagination } from './routes/validation';
export { awardBody, awardCasinoPath, awardPath, awardListQuery, MAX_AWARD_ROUNDS } from './routes/freeRounds';
export { transactionFilter, roundFilter, searchPaging, transactionSort, roundSort, transactionExportSort, roundExportSort } from './routes/money-params';
export { roundPath, transactionPath, TRANSACTION_CSV_COLUMNS, ROUND_CSV_COLUMNS } from './routes/money-search';
export { itemFilter, itemPaging, itemKey, decisionBody, ITEM_CSV_COLUMNS } from './routes/money-reconciliation';
export { winFilter, winPaging, winPath, thresholdsPath, thresholdsBody, WIN_CSV_COLUMNS, DEFAULT_WIN_DAYS } from './routes/money-wins';
export { reportQuery, reportPaging } from './routes/money-reports';
export { walletHealthQuery } from './routes/money-health';
export { ITEM_KINDS } from './data/reconciliation';
/** Who may do what (for the reference's "who may call" lines, computed from these grants). */
export { authorize, type Caller, type Permission } from './domain/access';
