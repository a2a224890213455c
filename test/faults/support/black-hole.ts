import { createServer, type Socket } from 'node:net';

/**
 * A casino address that accepts connections and reads requests but never answers: the relay's
 * call is on the wire and no casino will ever act on it. A crash while a call hangs here is a crash
 * after the PENDING write and before any casino saw the movement.
 */
export interface BlackHole {
  url: string;
  /** Requests (HTTP request lines) received so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      requests += (chunk.toString('latin1').match(/^POST /gm) ?? []).length;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
