import { useQuery } from '@tanstack/react-query';
import { get, query, type RoundStory } from '../lib/api';
import { CopyId, Money, Time } from '../lib/format';
import { QueryState } from '../shell/State';

/**
 * A round from its bet to its settlement: every transaction and every attempt at the casino, in
 * order, each amount in the session's currency. Another casino's round is "not found", as the API says.
 */
export function RoundStoryScreen({ providerId, roundId }: { providerId: string; roundId: string }) {
  const story = useQuery({
    queryKey: ['story', providerId, roundId],
    queryFn: () => get<RoundStory>(`/money/rounds/${encodeURIComponent(providerId)}/${encodeURIComponent(roundId)}/story`),
  });
  return (
    <>
      <h1>Round story</h1>
      <QueryState isPending={story.isPending} error={story.error} />
      {story.data && <Story s={story.data.data} />}
    </>
  );
}

function Story({ s }: { s: RoundStory }) {
  const r = s.round;
  const currency = s.session?.currency ?? r.currency;
  return (
    <>
      <section className="card" aria-label="Round">
        <dl className="facts">
          <dt>Round</dt><dd><CopyId value={r.roundId} label="round id" /></dd>
          <dt>Casino</dt><dd><CopyId value={r.providerId} label="casino id" /></dd>
          <dt>Player</dt><dd><CopyId value={r.playerId} label="player id" /></dd>
          <dt>Session</dt><dd><CopyId value={r.sessionId} label="session id" /></dd>
          <dt>Game</dt><dd>{r.gameId} (studio {r.groupId})</dd>
          <dt>Status</dt><dd>{r.status}{r.outcome ? ` · ${r.outcome}` : ''}{r.settleReason ? ` · ${r.settleReason}` : ''}</dd>
          <dt>Bet</dt><dd><Money amount={r.betAmount} currency={currency} /></dd>
          <dt>Payout</dt><dd><Money amount={r.payoutAmount} currency={currency} />{r.appliedMultiplier !== null ? ` (×${r.appliedMultiplier})` : ''}</dd>
          <dt>Opened</dt><dd><Time at={r.openedAt} /></dd>
          <dt>Settled</dt><dd><Time at={r.settledAt} /></dd>
        </dl>
        <p><a href={`/backoffice/v1/money/transactions.csv${query({ providerId: r.providerId, roundId: r.roundId })}`} download>Export this round's transactions (CSV)</a></p>
      </section>
      <h2>Timeline</h2>
      <ol className="timeline">
        {s.transactions.map((t) => (
          <li key={t.transactionId}>
            <div className="event">
              <strong>{t.category === 'CASH_OUT' ? 'Bet (cash-out)' : 'Settlement (cash-in)'}</strong> <Money amount={t.amount} currency={currency} /> · {t.status}
              {t.reason ? ` · ${t.reason}` : ''}{t.errorCode ? ` · ${t.errorCode}` : ''} · <Time at={t.createdAt} />
            </div>
            <div>Transaction <CopyId value={t.transactionId} label="transaction id" />{t.balance !== null && <> · balance after <Money amount={t.balance} currency={currency} /></>}</div>
            {(t.attemptLog ?? []).length > 0 && (
              <ol className="attempts" aria-label={`Attempts of ${t.transactionId}`}>
                {(t.attemptLog ?? []).map((a) => (
                  <li key={a.attempt}>
                    Attempt {a.attempt}: {a.outcome}{a.casinoStatus !== null ? ` (casino HTTP ${a.casinoStatus})` : ''}{a.durationMs !== null ? ` in ${a.durationMs} ms` : ''} · <Time at={a.startedAt} />
                    {a.errorCodeToGame ? ` · game told ${a.errorCodeToGame}` : ''}
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
        {s.roundEndedNotifications.map((n, i) => (
          <li key={`round-ended-${i}`}>
            <div className="event">
              <strong>Round ended, casino notified</strong> · {n.outcome === 'ok' ? 'casino accepted' : n.outcome} · <Time at={n.notifiedAt} />
            </div>
            {n.errorMessage && <div>{n.errorMessage}</div>}
          </li>
        ))}
      </ol>
    </>
  );
}
