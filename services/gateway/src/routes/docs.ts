import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Response } from 'express';
import { AppError, type Runtime } from '@relay/shared';

/**
 * The API reference, public (no token): the four OpenAPI documents committed under docs/api and an
 * interactive page rendered by Swagger UI, served from the npm package itself so the page works with
 * no internet access (no CDN, no remote fonts, the online validator switched off).
 */
export const REFERENCE_DOCUMENTS = ['game', 'casino', 'admin', 'backoffice'] as const;
export type ReferenceDocument = (typeof REFERENCE_DOCUMENTS)[number];

const TITLES: Record<ReferenceDocument, string> = { game: 'Game API', casino: 'Casino wallet protocol', admin: 'Admin API', backoffice: 'Back office API' };

/** The renderer's files the page loads; nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets element styles from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The repository's docs/api, from services/gateway/{src,dist}/routes. */
export const DEFAULT_DOCUMENTS_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'docs', 'api');

export function docsRouter(logger: Runtime['logger'], documentsDir = DEFAULT_DOCUMENTS_DIR): Router {
  const router = Router();
  const assetsDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const cache = new Map<ReferenceDocument, string>();

  const documentText = (name: ReferenceDocument): string => {
    let text = cache.get(name);
    if (text === undefined) {
      try {
        text = readFileSync(path.join(documentsDir, `${name}.json`), 'utf8');
      } catch (err) {
        logger.warn({ err: { message: (err as Error).message }, document: name }, 'API reference document missing');
        throw new AppError('NOT_FOUND', 'No such route');
      }
      cache.set(name, text);
    }
    return text;
  };

  for (const name of REFERENCE_DOCUMENTS) {
    router.get(`/openapi/${name}.json`, (_req, res) => {
      reference(res, 'application/json; charset=utf-8').send(documentText(name));
    });
  }

  router.get('/docs', (_req, res) => {
    reference(res, 'text/html; charset=utf-8').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    reference(res, 'text/javascript; charset=utf-8').send(INIT_SCRIPT);
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    const type = ASSETS[String(req.params.file)];
    if (!type) {
      next(new AppError('NOT_FOUND', 'No such route'));
      return;
    }
    reference(res, type).sendFile(path.join(assetsDir, String(req.params.file)));
  });
  return router;
}

function reference(res: Response, type: string): Response {
  return res.set({ 'Content-Type': type, 'Cache-Control': 'no-cache', 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' });
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Game Relay API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** `/docs?api=casino` opens that document first; the bar at the top switches between them. */
const INIT_SCRIPT = `(function () {
  var documents = ${JSON.stringify(REFERENCE_DOCUMENTS.map((name) => ({ url: `/openapi/${name}.json`, name: TITLES[name], key: name })))};
  var wanted = new URLSearchParams(window.location.search).get('api');
  var primary = documents.filter(function (d) { return d.key === wanted; })[0] || documents[0];
  window.ui = SwaggerUIBundle({
    urls: documents.map(function (d) { return { url: d.url, name: d.name }; }),
    'urls.primaryName': primary.name,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
})();
`;
