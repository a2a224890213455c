import type { World } from '../../provision';
import type { Player } from '../../game';

/**
 * The secrets of the platform a response or a log line must never carry: players' wallet tokens,
 * casinos' wallet secrets and launch keys, game provider tokens (and the admin token for logs).
 */
export interface NamedSecret {
  name: string;
  value: string;
}

export function secretsOf(world: World): NamedSecret[] {
  return [
    { name: `walletSecret of ${world.providerId}`, value: world.walletSecret },
    { name: `launchKey of ${world.providerId}`, value: world.launchKey },
    { name: `provider token of ${world.groupId}`, value: world.providerToken },
  ];
}

export function playerSecrets(players: Player[]): NamedSecret[] {
  return players.map((pl) => ({ name: `walletToken of ${pl.playerId}`, value: pl.walletToken }));
}

/** Secrets found in `text`, by name; secrets shorter than 12 characters are not meaningful to look for. */
export function leakedSecrets(text: string, secrets: NamedSecret[]): string[] {
  return secrets.filter((s) => s.value.length >= 12 && text.includes(s.value)).map((s) => s.name);
}

/** Text that only a stack trace or an internal error would put in a body. */
export const STACK_TRACE = /\bat [\w$.<>]+ \(|\.(ts|js):\d+:\d+|node_modules|Error: |\bstack\b/i;
