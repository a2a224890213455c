import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Route, Switch, useLocation } from 'wouter';
import { currentSession, request, whenSessionEnds, type SessionInfo } from '../lib/api';
import { QueryState } from './State';
import { SignIn } from '../signin/SignIn';
import { Overview } from '../overview/Overview';
import { Search } from '../search/Search';
import { RoundStoryScreen } from '../round/RoundStory';
import { Reconciliation } from '../reconciliation/Reconciliation';
import { FlaggedWins } from '../wins/FlaggedWins';
import { FlagThresholds } from '../wins/FlagThresholds';
import { Reports } from '../reports/Reports';
import { AuditTrail } from '../audit/AuditTrail';
import { Provisioning } from '../provisioning/Provisioning';
import { ThemeToggle } from './theme';

const NAV = [
  ['/', 'Overview'],
  ['/search', 'Search'],
  ['/reconciliation', 'Reconciliation'],
  ['/flagged-wins', 'Flagged wins'],
  ['/reports', 'Reports'],
] as const;
/** The audit trail is for admins (of any scope: the API narrows what each sees). */
const ADMIN_NAV = [['/audit', 'Audit trail']] as const;
/**
 * Provisioning is for platform admins only (the APIs refuse anyone else anyway); so are the win-flag
 * thresholds, reached from the Flagged wins screen (the header holds one line at 1280 px).
 */
const PLATFORM_ADMIN_NAV = [['/provisioning', 'Provisioning']] as const;
const isPlatformAdmin = (s: SessionInfo) => s.role === 'admin' && s.scope.type === 'platform';

function scopeLabel(s: SessionInfo): string {
  if (s.scope.type === 'casino') return `casino ${s.scope.providerId}`;
  if (s.scope.type === 'studio') return `studio ${s.scope.groupId}`;
  return 'platform';
}

/**
 * Who is signed in decides everything: no session, the sign-in screen; a session that ends while
 * someone works (a 401 from any call) brings the sign-in back as an overlay, and the screen under
 * it, with whatever was typed, stays mounted until the person has signed in again.
 */
export function App() {
  const client = useQueryClient();
  const [ended, setEnded] = useState(false);
  const session = useQuery({ queryKey: ['session'], queryFn: currentSession, retry: false, staleTime: Infinity });
  useEffect(() => whenSessionEnds(() => setEnded(true)), []);
  const [location] = useLocation();

  if (session.isPending || session.isError) return <main className="loading"><QueryState isPending={session.isPending} error={session.error} /></main>;
  const info = session.data;
  if (!info) return <main><SignIn onSignedIn={() => void client.invalidateQueries()} /></main>;

  const signOut = async () => {
    await request('DELETE', '/session').catch(() => undefined);
    // Nothing of this person's stays in the page's memory.
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    client.setQueryData(['session'], null);
  };

  return (
    <>
      <a className="skip" href="#main">Skip to content</a>
      <header className="top" inert={ended}>
        <span className="brand">Game Relay console</span>
        <nav aria-label="Main">
          {[...NAV, ...(info.role === 'admin' ? ADMIN_NAV : []), ...(isPlatformAdmin(info) ? PLATFORM_ADMIN_NAV : [])].map(([href, label]) => (
            <Link key={href} href={href} className={(href === '/' ? location === '/' : location.startsWith(href) || (href === '/flagged-wins' && location.startsWith('/flag-thresholds'))) ? 'active' : ''} aria-current={location === href ? 'page' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="who" title={`${info.account?.displayName ?? info.actorType} · ${info.role} · ${scopeLabel(info)}`}>
          {info.account?.displayName ?? info.actorType} · {info.role} · {scopeLabel(info)}
        </span>
        <ThemeToggle />
        <button type="button" onClick={() => void signOut()}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1} inert={ended} aria-hidden={ended || undefined}>
        <Switch>
          <Route path="/"><Overview session={info} /></Route>
          <Route path="/search"><Search /></Route>
          <Route path="/rounds/:providerId/:roundId">{(p) => <RoundStoryScreen providerId={decodeURIComponent(p.providerId)} roundId={decodeURIComponent(p.roundId)} />}</Route>
          <Route path="/reconciliation"><Reconciliation /></Route>
          <Route path="/flagged-wins"><FlaggedWins thresholds={isPlatformAdmin(info)} /></Route>
          <Route path="/flag-thresholds"><FlagThresholds /></Route>
          <Route path="/reports"><Reports /></Route>
          <Route path="/audit"><AuditTrail /></Route>
          {isPlatformAdmin(info) && <Route path="/provisioning" nest><Provisioning /></Route>}
          <Route><h1>Not found</h1><p>No such page.</p></Route>
        </Switch>
      </main>
      {ended && (
        <div className="overlay" role="dialog" aria-modal="true" aria-labelledby="signin-title">
          <SignIn
            expired
            onSignedIn={() => {
              setEnded(false);
              // The screen under the dialog kept what was typed; its data is fetched again.
              void client.invalidateQueries();
            }}
          />
        </div>
      )}
    </>
  );
}
