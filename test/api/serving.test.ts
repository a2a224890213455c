import { buildDocuments, DOCUMENT_NAMES } from '@relay/openapi';
import { http, startPlatform, type TestPlatform } from '../platform';

/**
 * The gateway serves the API reference to anyone (no token, and a wrong one does not matter): the
 * four documents exactly as generated, and the /docs page built only from the gateway's own files.
 */
const documents = buildDocuments();

describe('the API reference on the gateway', () => {
  let p: TestPlatform;

  beforeAll(async () => {
    p = await startPlatform({ services: [] });
  });

  afterAll(async () => {
    await p?.stop();
  });

  it.each(DOCUMENT_NAMES)('When /openapi/%s.json is fetched without a token, then it is the generated document', async (name) => {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Record<string, string>[]) {
      const res = await http('GET', `${p.baseUrl}/openapi/${name}.json`, { headers });
      expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: 200, type: 'application/json; charset=utf-8' });
      expect(res.body).toEqual(documents[name]);
    }
  });

  it('When /docs is fetched, then the page loads only the gateway\'s own scripts and styles, under a same-origin CSP', async () => {
    const res = await http('GET', `${p.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const loaded = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']));
    for (const path of loaded) {
      const asset = await http('GET', `${p.baseUrl}${path}`);
      expect({ path, status: asset.status }).toEqual({ path, status: 200 });
    }
    const init = await http('GET', `${p.baseUrl}/docs/init.js`);
    expect(init.text).toContain('validatorUrl: null');
    for (const name of DOCUMENT_NAMES) expect(init.text).toContain(`/openapi/${name}.json`);
  });

  it('When a file outside the reference is asked for, then the answer is 404', async () => {
    for (const path of ['/openapi/secrets.json', '/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/swagger-initializer.js']) {
      const res = await http('GET', `${p.baseUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });
});
