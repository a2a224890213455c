import type { ChangeBus, Config, Knex, Logger, OperatorSessions, Redis, SecretBox } from '@relay/shared';

/** What the back-office use cases need; built once per process in app.ts. */
export interface BackofficeDeps {
  /** The money database: accounts, tokens, the audit trail, configuration, and every write. */
  db: Knex;
  /** The reporting database (a logical replica of the ledger): what the money views read. */
  reporting: Knex;
  redis: Redis;
  secrets: SecretBox;
  sessions: OperatorSessions;
  bus: ChangeBus;
  logger: Logger;
  config: Config;
}
