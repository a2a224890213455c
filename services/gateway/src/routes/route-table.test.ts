import { audienceFor, routeFor } from './route-table';

describe('the web console in the route table', () => {
  it('When a path is the console or under it, then the back office serves it to anyone, named by one template', () => {
    for (const path of ['/console', '/console/', '/console/search', '/console/assets/index-abc.js', '/console/rounds/cas-1/round-1']) {
      expect([path, audienceFor(path), routeFor(path)]).toEqual([path, 'public', { service: 'backoffice', template: '/console/*' }]);
    }
  });

  it('When a path only starts with the same letters, then no route answers it', () => {
    for (const path of ['/consoles', '/console-admin', '/consolebackoffice/v1/accounts']) {
      expect([path, audienceFor(path)]).toEqual([path, null]);
    }
  });

  it('When the console calls the API, then that path still needs a back-office credential', () => {
    expect(audienceFor('/backoffice/v1/money/rounds')).toBe('backoffice');
  });
});

describe("a session's free-round awards in the route table", () => {
  it('When a game provider asks for a session\'s awards, then the wallet serves it under a template of its own, and the session itself keeps its template', () => {
    expect([audienceFor('/api/v1/sessions/s-1/free-rounds'), routeFor('/api/v1/sessions/s-1/free-rounds')]).toEqual(['provider', { service: 'wallet', template: '/api/v1/sessions/:sessionId/free-rounds' }]);
    expect(routeFor('/api/v1/sessions/s-1')).toEqual({ service: 'wallet', template: '/api/v1/sessions/:sessionId' });
    expect(routeFor('/api/v1/sessions/s-1/free-rounds/x')).toEqual({ service: 'wallet', template: '/api/v1/sessions/:sessionId' });
  });
});
