import { adminDocument } from './admin/document';
import { backofficeDocument } from './backoffice/document';
import { casinoDocument } from './casino/document';
import { gameDocument } from './game/document';

export type DocumentName = 'game' | 'casino' | 'admin' | 'backoffice';
export const DOCUMENT_NAMES: readonly DocumentName[] = ['game', 'casino', 'admin', 'backoffice'];

/** The four API references, built from the services' own schemas. */
export function buildDocuments(): Record<DocumentName, Record<string, unknown>> {
  return { game: gameDocument(), casino: casinoDocument(), admin: adminDocument(), backoffice: backofficeDocument() };
}

/** The committed text of a document: stable key order as built, two-space indent, final newline. */
export function documentText(doc: Record<string, unknown>): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export { gameDocument, casinoDocument, adminDocument, backofficeDocument };
