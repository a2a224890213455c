import { z } from 'zod';
import { money, newId, randomSecret } from '@relay/shared';
import type { SandboxCasino } from './casino';
import { createLaunchToken } from './launch-token';
import type { PlayerView } from './ledger';

/**
 * The sandbox casino's lobby, for the demo and the browser test: a page listing one casino's
 * players with their balances, where "Play" signs the player in to a game the way a casino does:
 * it issues a fresh wallet token, seals it in a launch token (docs/integrating-a-casino.md) and sends the browser
 * to the relay's /launch. Configured through PUT /_control/lobby (or `sandbox.lobby.configure`).
 *
 *   GET  /  and  /lobby      the page
 *   POST /lobby/play         form field playerId: 303 to {launcherUrl}/launch?token=...
 *   GET|PUT /_control/lobby  the configuration (the launch key is never shown)
 */
export const lobbyConfigSchema = z.object({
  /** The relay's public address (the gateway), where /launch lives. */
  launcherUrl: z.url({ protocol: /^https?$/ }),
  providerId: z.string().min(1),
  /** base64url of the casino's 32-byte launch key, as registered with the relay. */
  launchKey: z.string().refine((k) => Buffer.from(k, 'base64url').length === 32, 'must be 32 bytes as base64url'),
  gameId: z.number().int().positive(),
  currency: z.string().min(1),
  language: z.string().min(1).default('en'),
  casinoName: z.string().min(1).default('Sandbox Casino'),
  gameName: z.string().min(1).default('Demo game'),
});
export type LobbyConfig = z.infer<typeof lobbyConfigSchema>;
export type LobbyConfigInput = z.input<typeof lobbyConfigSchema>;

export interface LobbyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const LOBBY_PATHS = new Set(['/', '/favicon.ico', '/lobby', '/lobby/play', '/_control/lobby']);

export function isLobbyPath(pathname: string): boolean {
  return LOBBY_PATHS.has(pathname);
}

export class Lobby {
  private config: LobbyConfig | undefined;

  /** `baseUrl`: the sandbox's own address, for the game's link back to the lobby. */
  constructor(
    private readonly casino: SandboxCasino,
    private readonly baseUrl: string,
  ) {}

  get url(): string {
    return `${this.baseUrl}/lobby`;
  }

  configure(input: LobbyConfigInput): void {
    this.config = lobbyConfigSchema.parse(input);
  }

  async handle(method: string, pathname: string, body: Buffer): Promise<LobbyAnswer> {
    if (pathname === '/_control/lobby') return this.control(method, body);
    if (pathname === '/') return { status: 302, headers: { location: '/lobby' }, body: '' };
    if (pathname === '/favicon.ico') return { status: 204, headers: {}, body: '' };
    if (pathname === '/lobby') return method === 'GET' || method === 'HEAD' ? this.page() : page(405, 'Method not allowed', '<p>Use GET.</p>');
    if (method !== 'POST') return page(405, 'Method not allowed', '<p>Use the Play button.</p>');
    return this.play(new URLSearchParams(body.toString('utf8')).get('playerId') ?? '');
  }

  private page(): LobbyAnswer {
    const config = this.config;
    if (!config) return page(503, 'Lobby not configured', '<p>The lobby has no game yet: <code>PUT /_control/lobby</code>.</p>');
    const players = this.casino.ledger({ providerId: config.providerId });
    const rows = players.map((p) => playerRow(p, config.currency)).join('\n');
    return page(
      200,
      config.casinoName,
      `<p class="sub">Sandbox casino <code>${esc(config.providerId)}</code>: pick a player and play <b>${esc(config.gameName)}</b> in ${esc(config.currency)}.</p>
<table id="players">
<thead><tr><th>Player</th><th>Player id</th><th class="num">Balance</th><th></th></tr></thead>
<tbody>
${rows || '<tr><td colspan="4">No players yet: <code>POST /_control/players</code>.</td></tr>'}
</tbody>
</table>`,
    );
  }

  private async play(playerId: string): Promise<LobbyAnswer> {
    const config = this.config;
    if (!config) return page(503, 'Lobby not configured', '<p>The lobby has no game yet.</p>');
    const player = this.casino.getPlayer(config.providerId, playerId);
    if (!player) return page(404, 'Unknown player', `<p>No player <code>${esc(playerId)}</code> at this casino. <a href="/lobby">Back to the lobby</a></p>`);

    // A casino signs the player in afresh for each game launch: a new wallet token replaces the old
    // one (balance kept exactly), so an older game session of this player now gets TOKEN_EXPIRED.
    const walletToken = randomSecret(24);
    this.casino.addPlayer({ providerId: config.providerId, playerId, walletToken, balance: player.balanceText, username: player.username });
    const token = await createLaunchToken({
      launchKey: config.launchKey,
      providerId: config.providerId,
      playerId,
      walletToken,
      username: player.username,
      currency: config.currency,
      gameId: config.gameId,
      jti: newId(), // single-use: a launch URL copied out of the history launches nobody
    });
    const query = new URLSearchParams({
      token,
      providerId: config.providerId,
      gameId: String(config.gameId),
      currency: config.currency,
      language: config.language,
      backtoHome: this.url,
    });
    return { status: 303, headers: { location: `${config.launcherUrl.replace(/\/+$/, '')}/launch?${query}`, 'cache-control': 'no-store' }, body: '' };
  }

  private control(method: string, body: Buffer): LobbyAnswer {
    if (method === 'PUT') {
      let input: unknown;
      try {
        input = JSON.parse(body.toString('utf8'));
      } catch {
        return json(400, { error: 'BAD_REQUEST', message: 'body is not JSON' });
      }
      const parsed = lobbyConfigSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return json(400, { error: 'BAD_REQUEST', message: `${issue.path.join('.') || 'body'}: ${issue.message}` });
      }
      this.config = parsed.data;
    } else if (method !== 'GET') {
      return json(405, { error: 'METHOD_NOT_ALLOWED' });
    }
    if (!this.config) return json(404, { error: 'LOBBY_NOT_CONFIGURED' });
    const { launchKey: _secret, ...shown } = this.config;
    return json(200, { ...shown, url: this.url });
  }
}

function playerRow(p: PlayerView, currency: string): string {
  const name = p.username ?? p.playerId;
  return `<tr data-player-id="${esc(p.playerId)}">
<td class="name">${esc(name)}</td><td><code>${esc(p.playerId)}</code></td>
<td class="num balance">${esc(showBalance(p.balanceText))} ${esc(currency)}</td>
<td><form method="post" action="/lobby/play"><input type="hidden" name="playerId" value="${esc(p.playerId)}"><button type="submit">Play</button></form></td>
</tr>`;
}

/** Cents always shown; a balance with more decimals than that is shown exactly, not rounded. */
function showBalance(text: string): string {
  const value = money(text);
  return value.decimalPlaces() <= 2 ? value.toFixed(2) : value.toString();
}

function json(status: number, body: unknown): LobbyAnswer {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function page(status: number, title: string, content: string): LobbyAnswer {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#0f172a;color:#e2e8f0;margin:0;padding:2rem}
main{max-width:760px;margin:0 auto}
h1{margin:0 0 .25rem}.sub{color:#94a3b8;margin:0 0 1.5rem}
table{width:100%;border-collapse:collapse;background:#1e293b;border-radius:8px;overflow:hidden}
th,td{padding:.7rem 1rem;text-align:left;border-bottom:1px solid #334155}th{color:#94a3b8;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}code{color:#a5b4fc}
button{background:#22c55e;color:#052e16;border:0;border-radius:6px;padding:.45rem 1.1rem;font-weight:700;cursor:pointer}
a{color:#a5b4fc}
</style></head>
<body><main><h1>${esc(title)}</h1>
${content}
</main></body></html>`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // No script on this page; the form posts to ourselves, and the launch redirect leaves it.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'referrer-policy': 'no-referrer',
    },
    body: html,
  };
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
