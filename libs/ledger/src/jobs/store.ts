import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '@relay/shared';
import { writeDurably } from './archive';

/**
 * Where archived months live. Files are always written and verified in LEDGER_ARCHIVE_DIR
 * (`<dir>/<YYYY-MM>/<table>.csv.gz` and `manifest.json`); with LEDGER_ARCHIVE_S3_BUCKET set
 * they are also uploaded (same keys under LEDGER_ARCHIVE_S3_PREFIX) before the month is dropped,
 * and verify/restore fetch a month missing from the directory from the bucket.
 */
export interface ArchiveStore {
  dir: string;
  /** Makes the month's files durable in the remote store, if there is one (manifest last). */
  publish(month: string, files: string[]): Promise<void>;
  /** Makes sure the month's named file is in the local directory (downloading it if needed); false if nowhere. */
  fetch(month: string, file: string): Promise<boolean>;
}

export function archiveStore(config: Pick<Config, 'LEDGER_ARCHIVE_DIR' | 'LEDGER_ARCHIVE_S3_BUCKET' | 'LEDGER_ARCHIVE_S3_ENDPOINT' | 'LEDGER_ARCHIVE_S3_REGION' | 'LEDGER_ARCHIVE_S3_PREFIX'>): ArchiveStore {
  const dir = path.resolve(config.LEDGER_ARCHIVE_DIR);
  const local = (month: string, file: string) => path.join(dir, month, file);
  const exists = (file: string) => fs.stat(file).then(() => true, () => false);
  const bucket = config.LEDGER_ARCHIVE_S3_BUCKET;
  if (!bucket) {
    return { dir, publish: async () => undefined, fetch: (month, file) => exists(local(month, file)) };
  }
  // Credentials come from the SDK's usual chain (environment, instance role): never from our config.
  // An S3-compatible endpoint: path-style, and checksums only where the API requires them. The
  // SDK's default (a CRC32 trailer, aws-chunked) is not understood by every S3-compatible store;
  // one that does not stores the chunk framing as the object's bytes (seen with s3rver).
  const s3 = new S3Client({
    region: config.LEDGER_ARCHIVE_S3_REGION,
    ...(config.LEDGER_ARCHIVE_S3_ENDPOINT
      ? { endpoint: config.LEDGER_ARCHIVE_S3_ENDPOINT, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  });
  const key = (month: string, file: string) => [config.LEDGER_ARCHIVE_S3_PREFIX.replace(/\/+$/, ''), month, file].filter(Boolean).join('/');
  return {
    dir,
    publish: async (month, files) => {
      for (const file of files) {
        const stat = await fs.stat(local(month, file));
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key(month, file), Body: createReadStream(local(month, file)), ContentLength: stat.size }));
        // The store must hold exactly the file's bytes before the month may be dropped.
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key(month, file) }));
        if (head.ContentLength !== stat.size) {
          throw new Error(`s3://${bucket}/${key(month, file)} holds ${head.ContentLength} bytes, the archived file ${stat.size}: not published`);
        }
      }
    },
    fetch: async (month, file) => {
      if (await exists(local(month, file))) return true;
      try {
        const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key(month, file) }));
        await writeDurably(local(month, file), (tmp) => pipeline(answer.Body as Readable, createWriteStream(tmp)));
        return true;
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return false;
        throw err;
      }
    },
  };
}
