import http from 'node:http';

/**
 * A careless casino: it answers with the player's wallet token and the request signature in its
 * bodies, on success and on failure. The relay must not carry either into a response, a log line
 * or the audit text it stores.
 *   balance          200 {balance, echo: walletToken, signature}
 *   debit  amount<5  200 {balance, echo: walletToken}      otherwise 500 {error: walletToken, message}
 *   credit amount=0  200 {balance, echo: walletToken}      otherwise 400 {error, message with the token}
 *   round-ended      403 {error: signature}
 */
export interface EchoCasino {
  walletUrl: string;
  calls: number;
  close(): Promise<void>;
}

export async function startEchoCasino(): Promise<EchoCasino> {
  const state = { calls: 0 };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      state.calls += 1;
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // answered below like any other call
      }
      const token = String(body.walletToken ?? '');
      const signature = String(req.headers['x-relay-signature'] ?? '');
      const operation = (req.url ?? '').split('/').pop();
      const amount = Number(body.amount ?? 0);
      const send = (status: number, payload: unknown) => {
        const text = JSON.stringify(payload);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      };
      if (operation === 'balance') return send(200, { balance: 50, echo: token, signature });
      if (operation === 'debit') return amount < 5 ? send(200, { balance: 49, echo: token }) : send(500, { error: token, message: `token ${token} refused` });
      if (operation === 'credit') return amount === 0 ? send(200, { balance: 49, echo: token }) : send(400, { error: 'REFUSED', message: `walletToken=${token}` });
      return send(403, { error: signature });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    walletUrl: `http://127.0.0.1:${port}/wallet`,
    get calls() {
      return state.calls;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
