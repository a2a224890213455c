import type { Knex } from 'knex';
import { ConfigCache, type ChangeBus } from './cache';
import type { SecretBox } from './crypto';
import type { FreeRoundsMode } from './free-rounds';

export type Status = 'ACTIVE' | 'INACTIVE';

/** A casino as the services use it; the secrets are opened in memory only, never returned. */
export interface Casino {
  providerId: string;
  name: string;
  walletUrl: string;
  walletSecret: string;
  launchKey: string;
  status: Status;
  refundOnCreditFail: boolean;
  creditOnDisconnect: boolean;
  /** Issue 35: 'managed' checks every freebet credit against the casino's awards; 'passthrough' relays it unchecked. */
  freeRoundsMode: FreeRoundsMode;
  createdAt: string;
}

export interface Game {
  gameId: number;
  groupId: string;
  name: string;
  frontendUrl: string;
  status: Status;
  groupStatus: Status;
  /** The game provider's RSA public key for encrypted launch parameters, when it opted in. */
  launchPublicKeyPem: string | null;
}

/**
 * Read-through access to the admin-managed records every game call needs. Entries are cached per
 * process and dropped on every admin change (ChangeBus), so a change applies within a second.
 */
export class Registry {
  private readonly casinos: ConfigCache<Casino | null>;
  private readonly games: ConfigCache<Game | null>;

  constructor(private readonly db: Knex, private readonly secrets: SecretBox, bus: ChangeBus | null) {
    this.casinos = new ConfigCache(['casino'], bus);
    this.games = new ConfigCache(['game', 'group'], bus);
  }

  casino(providerId: string): Promise<Casino | null> {
    return this.casinos.getOrLoad(providerId, async () => {
      const row = await this.db('casinos').where('provider_id', providerId).first();
      if (!row) return null;
      return {
        providerId: row.provider_id,
        name: row.name,
        walletUrl: row.wallet_url,
        walletSecret: this.secrets.open(row.wallet_secret_enc),
        launchKey: this.secrets.open(row.launch_key_enc),
        status: row.status,
        refundOnCreditFail: row.refund_on_credit_fail,
        creditOnDisconnect: row.credit_on_disconnect,
        freeRoundsMode: row.free_rounds_mode,
        createdAt: (row.created_at as Date).toISOString(),
      };
    });
  }

  game(gameId: number): Promise<Game | null> {
    return this.games.getOrLoad(String(gameId), async () => {
      const row = await this.db('games as g')
        .join('game_providers as p', 'p.group_id', 'g.group_id')
        .where('g.game_id', gameId)
        .first('g.game_id', 'g.group_id', 'g.name', 'g.frontend_url', 'g.status', 'p.status as group_status', 'p.launch_public_key_pem');
      if (!row) return null;
      return {
        gameId: row.game_id,
        groupId: row.group_id,
        name: row.name,
        frontendUrl: row.frontend_url,
        status: row.status,
        groupStatus: row.group_status,
        launchPublicKeyPem: row.launch_public_key_pem,
      };
    });
  }
}
