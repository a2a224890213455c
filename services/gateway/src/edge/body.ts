import type http from 'node:http';
import type { Request } from 'express';
import type { Plugin } from 'http-proxy-middleware';
import { AppError } from '@relay/shared';

declare module 'express-serve-static-core' {
  interface Request {
    /** The body, read whole at the edge before anything upstream is held (null: none). */
    bufferedBody?: Buffer | null;
  }
}

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a request body completely, within `timeoutMs` and `MAX_BODY_BYTES`, before anything
 * upstream is held: a client that declares a body and sends it a byte at a time keeps only its own
 * socket at the edge, never a connection to a service. Returns null for a request without a body.
 */
export function readBody(req: Request, timeoutMs: number): Promise<Buffer | null> {
  const declared = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (declared === undefined || declared === '0')) return Promise.resolve(null);
  if (Number(declared) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => fail(new AppError('REQUEST_TIMEOUT', `The request body did not arrive within ${timeoutMs} ms`)), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const fail = (err: AppError) => {
      cleanup();
      // The rest of this body is not read: the answer closes the connection after it.
      err.headers.Connection = 'close';
      req.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return fail(tooLarge());
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => fail(new AppError('Bad Request', 'The request body could not be read'));
    const onAborted = () => fail(new AppError('Bad Request', 'The client closed the request before its body arrived'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function tooLarge(): AppError {
  // Refused on its declared length, the body is still on its way: the connection closes after the
  // answer rather than Node reading (and dropping) the rest of it until the request time-out.
  return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 64 KiB', { headers: { Connection: 'close' } });
}

/**
 * http-proxy pipes `options.buffer || req` into the upstream request; the body was read at the
 * edge, so each request is sent from its own buffer (HPM passes options per request only here).
 * The buffer is handed over whole with `end(body)`, which is all http-proxy asks of `pipe`: a
 * stream made for it (Readable.from) costs a stream, an async iterator and several ticks per
 * request, and sends the body in a write of its own.
 */
export const bufferedBodyPlugin: Plugin = (proxyServer) => {
  const web = proxyServer.web.bind(proxyServer) as (req: http.IncomingMessage, res: http.ServerResponse, options: object, ...rest: unknown[]) => void;
  (proxyServer as { web: typeof web }).web = (req, res, options, ...rest) => {
    const body = (req as Request).bufferedBody;
    web(req, res, body ? { ...options, buffer: wholeBody(body) } : options, ...rest);
  };
};

/** What http-proxy calls on `options.buffer`: `pipe(proxyReq)`. */
function wholeBody(body: Buffer): { pipe: (to: http.ClientRequest) => http.ClientRequest } {
  return { pipe: (to) => to.end(body) };
}
