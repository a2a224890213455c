import { adminDocument } from './admin/document';
import { casinoDocument } from './casino/document';
import { gameDocument } from './game/document';

export type DocumentName = 'game' | 'casino' | 'admin';
export const DOCUMENT_NAMES: readonly DocumentName[] = ['game', 'casino', 'admin'];

/** The three API references, built from the services' own schemas. */
export function buildDocuments(): Record<DocumentName, Record<string, unknown>> {
  return { game: gameDocument(), casino: casinoDocument(), admin: adminDocument() };
}

/** The committed text of a document: stable key order as built, two-space indent, final newline. */
export function documentText(doc: Record<string, unknown>): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export { gameDocument, casinoDocument, adminDocument };
