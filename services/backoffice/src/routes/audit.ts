import { Router } from 'express';
import { csvWriter } from './csv';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { BackofficeDeps } from '../domain/deps';
import { handler, pageMeta, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import { exportAuditTrail, listAuditTrail, verifyAuditTrail } from '../domain/auditTrail';
import { presentAudit } from './present';
import { factsOf, pagination, parse } from './validation';
import { auditExport } from '../domain/audit';

export const auditFilter = z.object({
  actorId: z.string().max(200).optional(),
  actorType: z.enum(['admin-token', 'operator', 'casino-token', 'system']).optional(),
  action: z.string().max(100).optional(),
  target: z.string().max(300).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
});

export const AUDIT_CSV_COLUMNS = ['id', 'occurredAt', 'actorType', 'actorId', 'clientAddress', 'method', 'route', 'requestId', 'action', 'target', 'before', 'after', 'prevHash', 'hash'];

/** The audit trail: filtered reads, a streamed CSV export, and the chain check. No route changes it. */
export function auditRoutes(deps: BackofficeDeps): Router {
  return Router()
    .get('/audit', handler(async (req, res) => {
      const { page, limit, ...f } = parse(pagination.extend(auditFilter.shape), req.query);
      const { total, rows } = await listAuditTrail(deps, callerOf(req.identity), f, { limit, offset: (page - 1) * limit });
      sendEnvelope(res, 200, 'Audit trail fetched successfully', rows.map(presentAudit), pageMeta(total, page, limit));
    }))
    .get('/audit/verify', handler(async (req, res) => {
      const verdict = await verifyAuditTrail(deps, callerOf(req.identity));
      sendEnvelope(res, 200, verdict.valid ? 'The audit chain is intact' : 'The audit chain is broken', verdict);
    }))
    .get('/audit.csv', handler(async (req, res) => {
      const f = parse(auditFilter, req.query);
      const pages = exportAuditTrail(deps, callerOf(req.identity), f);
      await auditExport(deps, factsOf(req), 'audit.csv', f);
      res.status(200).type('text/csv').setHeader('Content-Disposition', 'attachment; filename="audit.csv"');
      async function* rows() {
        for await (const page of pages) {
          for (const r of page) yield { ...presentAudit(r), before: JSON.stringify(r.before), after: JSON.stringify(r.after) };
        }
      }
      // Names, reasons and targets come from people and casinos: every cell guarded as in the money exports.
      await pipeline(Readable.from(rows()), csvWriter(AUDIT_CSV_COLUMNS), res);
    }));
}
