import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Secrets at rest (casino wallet secrets, launch keys, players' wallet tokens) are sealed with
 * AES-256-GCM under a key derived from DATA_ENCRYPTION_KEY: v1.<iv>.<tag>.<ciphertext>, base64url
 * parts. For rotation without downtime, keys given as `decryptOnly` (DATA_ENCRYPTION_KEY_DECRYPT_ONLY)
 * open values but never seal them; GCM's tag tells which key a value was sealed with.
 * docs/runbooks/rotating-secrets.md gives the order.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly keys: Buffer[];

  constructor(dataEncryptionKey: string, decryptOnly: readonly string[] = []) {
    this.key = deriveKey(dataEncryptionKey);
    this.keys = [this.key, ...decryptOnly.map(deriveKey)];
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    return this.openWith(sealed).plaintext;
  }

  /** Whether a sealed value was sealed with the current key (a re-seal would change nothing). */
  sealedWithCurrentKey(sealed: string): boolean {
    return this.openWith(sealed).key === this.key;
  }

  private openWith(sealed: string): { plaintext: string; key: Buffer } {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown sealed secret format');
    let last: unknown;
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return { plaintext: Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8'), key };
      } catch (err) {
        last = err;
      }
    }
    throw last as Error;
  }
}

function deriveKey(dataEncryptionKey: string): Buffer {
  return createHash('sha256').update(`relay-data-key:${dataEncryptionKey}`).digest();
}

/** Provider tokens are 256-bit random values, so a plain SHA-256 is a sufficient one-way hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function newId(): string {
  return randomUUID();
}

/**
 * The admin token, or while it is being rotated the previous one too (ADMIN_TOKEN_PREVIOUS), so
 * operators and Prometheus switch over while gateways restart one by one.
 */
export function isAdminToken(token: string, config: { ADMIN_TOKEN: string; ADMIN_TOKEN_PREVIOUS?: string }): boolean {
  const current = constantTimeEqual(token, config.ADMIN_TOKEN);
  const previous = config.ADMIN_TOKEN_PREVIOUS !== undefined && constantTimeEqual(token, config.ADMIN_TOKEN_PREVIOUS);
  return current || previous;
}
