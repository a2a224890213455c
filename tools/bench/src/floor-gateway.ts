import http from 'node:http';
import { hashToken, IDENTITY_HEADER, IdentitySigner } from '@relay/shared';
import { required, serve } from './floor-process';

/**
 * The floor of the gateway hop (money bench, "bare stand-ins"): what the architecture makes the
 * gateway do per call and nothing else. A game provider token is looked up by its hash, the caller's
 * identity is signed (the signed token reused, as the gateway does), and the request is piped to
 * the wallet over a keep-alive pool. No express, no logging, no metrics, no input checks.
 * FLOOR_PORT, FLOOR_UPSTREAM (the wallet's origin), FLOOR_TOKEN_HASH and FLOOR_GROUP_ID,
 * INTERNAL_AUTH_SECRET.
 */
const upstream = new URL(required('FLOOR_UPSTREAM'));
const tokens = new Map([[required('FLOOR_TOKEN_HASH'), required('FLOOR_GROUP_ID')]]);
const signer = new IdentitySigner(required('INTERNAL_AUTH_SECRET'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  if (req.url === '/readyz') {
    res.writeHead(200).end();
    return;
  }
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const groupId = tokens.get(hashToken(token));
  if (!groupId) {
    res.writeHead(401).end();
    return;
  }
  void signer.sign({ kind: 'provider', groupId }).then((identity) => {
    const headers = { ...req.headers, [IDENTITY_HEADER]: identity };
    delete headers.authorization;
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
});
serve(server);
