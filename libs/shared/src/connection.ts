import type { Socket } from 'node:net';

const callersBySocket = new WeakMap<Socket, Set<() => void>>();

/**
 * Runs `gone` when the caller's connection closes. A pipelined request whose answer waits behind
 * an earlier one never emits 'close' on its response when the connection drops (Node leaves it in
 * the connection's queue), so whatever ends only on the response's 'close' (the gateway's upstream
 * slot, the in-flight count, the access log line) would never end. One listener per connection,
 * whatever the number of requests on it; the returned function forgets `gone` (call it when the
 * answer has closed normally, so a long keep-alive connection does not collect them).
 */
export function onConnectionClose(socket: Socket, gone: () => void): () => void {
  let callers = callersBySocket.get(socket);
  if (!callers) {
    const set = new Set<() => void>();
    callers = set;
    callersBySocket.set(socket, set);
    socket.once('close', () => {
      for (const caller of set) caller();
      set.clear();
    });
  }
  callers.add(gone);
  const registered = callers;
  return () => registered.delete(gone);
}
