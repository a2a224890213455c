import type { Request } from 'express';
import { AppError } from '@relay/shared';

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
