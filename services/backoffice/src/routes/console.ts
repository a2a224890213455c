import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import { AppError } from '@relay/shared';

/**
 * The web console (tools/console, built by `npm run build` into its dist/) at /console/: its
 * static files, and index.html for every other path under it so a reload or a shared link to a
 * screen works. The files carry no secret and need no credential; every API call the console
 * makes carries the session cookie and CSRF token like any other.
 */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '../../../../tools/console/dist');

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // The chart library and React set style attributes.
  "style-src 'self' 'unsafe-inline'",
  // The enrolment QR code is a data: URL from the sign-in answer.
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export function consoleRoutes(dir = DEFAULT_CONSOLE_DIR): Router {
  const router = Router();
  const index = path.join(dir, 'index.html');
  router.use((_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' });
    next();
  });
  // Hashed file names under assets/ never change: cached for a year. index.html is always revalidated.
  router.use('/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use('/assets', (_req, _res, next) => next(new AppError('NOT_FOUND', 'No such file')));
  router.use(express.static(dir, { index: false, maxAge: 0 }));
  router.get(/.*/, (_req, res, next) => {
    if (!existsSync(index)) return next(new AppError('NOT_FOUND', 'The console is not built: run npm run build'));
    res.set('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
