import type { Knex } from '@relay/shared';

/** Casinos and game providers as the back office lists them: names and status, never secrets. */
export function casinosQuery(db: Knex): Knex.QueryBuilder {
  return db('casinos').select('provider_id', 'name', 'status', 'created_at').orderBy('provider_id');
}

export function gameProvidersQuery(db: Knex): Knex.QueryBuilder {
  return db('game_providers').select('group_id', 'name', 'status', 'created_at').orderBy('group_id');
}
