import type { ChangeBus, Config, Knex, Logger, OperatorSessions, Redis, SecretBox } from '@relay/shared';

/** What the back-office use cases need; built once per process in app.ts. */
export interface BackofficeDeps {
  db: Knex;
  read: Knex;
  redis: Redis;
  secrets: SecretBox;
  sessions: OperatorSessions;
  bus: ChangeBus;
  logger: Logger;
  config: Config;
}
