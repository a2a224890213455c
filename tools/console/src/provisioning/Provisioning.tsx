import { Link, Route, Switch, useLocation } from 'wouter';
import { CasinoDetail, CasinoList } from './Casinos';
import { StudioDetail, StudioList } from './Studios';
import { GameDetail, GameList } from './Games';
import { CasinoGames } from './CasinoGames';
import { Accounts } from './Accounts';

const SECTIONS = [
  ['/casinos', 'Casinos'],
  ['/studios', 'Game providers'],
  ['/games', 'Games'],
  ['/casino-games', 'Casino games'],
  ['/accounts', 'Accounts'],
] as const;
const NEW_FORMS: Record<string, string> = { '/casinos': '/new-casino', '/studios': '/new-game-provider' };

/**
 * Provisioning, for platform admins (the navigation shows it to nobody else, and the APIs refuse
 * anyone else): casinos and their API tokens, game providers and their tokens, games and their
 * config templates, each casino's game settings and bet limits, and the people who sign in.
 * Nested under /provisioning: the links and routes below are relative to it.
 */
export function Provisioning() {
  const [location] = useLocation();
  return (
    <>
      <nav className="subnav" aria-label="Provisioning">
        {SECTIONS.map(([href, label]) => (
          <Link key={href} href={href} className={location.startsWith(href) || location === NEW_FORMS[href] ? 'active' : ''} aria-current={location === href ? 'page' : undefined}>{label}</Link>
        ))}
      </nav>
      <Switch>
        <Route path="/"><CasinoList /></Route>
        <Route path="/casinos"><CasinoList /></Route>
        {/* "new" could be a casino's or a provider's id: the create forms have addresses of their own. */}
        <Route path="/new-casino"><CasinoDetail providerId={null} /></Route>
        <Route path="/new-game-provider"><StudioDetail groupId={null} /></Route>
        <Route path="/casinos/:providerId">{(p) => <CasinoDetail key={p.providerId} providerId={decodeURIComponent(p.providerId)} />}</Route>
        <Route path="/studios"><StudioList /></Route>
        <Route path="/studios/:groupId">{(p) => <StudioDetail key={p.groupId} groupId={decodeURIComponent(p.groupId)} />}</Route>
        <Route path="/games"><GameList /></Route>
        <Route path="/games/:gameId">{(p) => <GameDetail key={p.gameId} gameId={Number(p.gameId)} />}</Route>
        <Route path="/casino-games"><CasinoGames /></Route>
        <Route path="/accounts"><Accounts /></Route>
        <Route><h1>Not found</h1><p>No such provisioning page.</p></Route>
      </Switch>
    </>
  );
}
