/* global process, fetch, AbortSignal */
// Container health check (compose): `node docker/healthcheck.mjs http://127.0.0.1:8082/readyz`.
// Exit 0 when the URL answers 2xx within two seconds.
const url = process.argv[2];
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
