import { promises as fs } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { MANIFEST, sha256File, sha256Text, TABLE_SPECS, verifyFiles, type Manifest } from './archive';
import type { ArchiveStore } from './store';

export interface ChainReport {
  months: string[];
  problems: string[];
}

/**
 * Walks the archive chain in month order: each archived month of the registry must have its
 * manifest (same sha256 as registered), each manifest must name the previous one's hash, each
 * file must have the sha256 its manifest says; and the registry's latest hash closes the chain,
 * so a removed last month is seen too. Manifests found in the store but unknown to the
 * registry are reported as well.
 */
export async function verifyChain(client: pg.ClientBase, store: ArchiveStore, options: { deep?: boolean } = {}): Promise<ChainReport> {
  const problems: string[] = [];
  const { rows } = await client.query<{ month: string; manifest_sha256: string; manifest: unknown }>(
    `SELECT to_char(month, 'YYYY-MM') AS month, manifest_sha256 FROM ledger_archives WHERE state = 'archived' ORDER BY month`,
  );
  let previous: string | null = null;
  for (const row of rows) {
    if (!(await store.fetch(row.month, MANIFEST))) {
      problems.push(`${row.month}: manifest missing (the month was removed from the archive)`);
      previous = row.manifest_sha256;
      continue;
    }
    const file = path.join(store.dir, row.month, MANIFEST);
    const text = await fs.readFile(file, 'utf8');
    const sha = sha256Text(text);
    if (sha !== row.manifest_sha256) problems.push(`${row.month}: manifest sha256 ${sha} differs from the registry's ${row.manifest_sha256} (edited)`);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(text) as Manifest;
    } catch {
      problems.push(`${row.month}: manifest is not JSON`);
      previous = row.manifest_sha256;
      continue;
    }
    if (manifest.previous_manifest_sha256 !== previous) {
      problems.push(`${row.month}: previous_manifest_sha256 ${manifest.previous_manifest_sha256} does not match the previous month's manifest ${previous}`);
    }
    for (const spec of TABLE_SPECS) await store.fetch(row.month, manifest.tables[spec.table]?.file ?? '');
    if (options.deep) {
      problems.push(...(await verifyFiles(path.join(store.dir, row.month), manifest)));
    } else {
      for (const spec of TABLE_SPECS) {
        const entry = manifest.tables[spec.table];
        const f = path.join(store.dir, row.month, entry.file);
        const actual = await sha256File(f).catch(() => null);
        if (actual === null) problems.push(`${row.month} ${spec.table}: file ${entry.file} is missing`);
        else if (actual !== entry.sha256) problems.push(`${row.month} ${spec.table}: sha256 ${actual} differs from the manifest's ${entry.sha256} (edited)`);
      }
    }
    previous = sha;
  }
  const known = new Set(rows.map((r) => r.month));
  const inStore = await fs.readdir(store.dir).catch(() => [] as string[]);
  for (const month of inStore.filter((m) => /^\d{4}-\d{2}$/.test(m)).sort()) {
    const hasManifest = await fs.stat(path.join(store.dir, month, MANIFEST)).then(() => true, () => false);
    if (hasManifest && !known.has(month)) {
      const state = await client.query<{ state: string }>(`SELECT state FROM ledger_archives WHERE to_char(month, 'YYYY-MM') = $1`, [month]);
      if (!state.rows.length) problems.push(`${month}: a manifest the registry does not know`);
    }
  }
  return { months: rows.map((r) => r.month), problems };
}
