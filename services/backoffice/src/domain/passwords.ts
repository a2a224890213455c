import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError } from '@relay/shared';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/** About 49,000 of the most common passwords, as zxcvbn ships them (lower case). */
const COMMON = new Set<string>((dictionary as Record<string, string[]>)['passwords-common']);

/** `Algorithm.Argon2id` of @node-rs/argon2, an ambient const enum that isolated modules cannot read. */
const ARGON2ID = 2;

/** argon2id with the OWASP minimum (19 MiB, 2 passes); the parameters travel in the hash. */
const ARGON2 = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function checkPasswordPolicy(password: string, email: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AppError('WEAK_PASSWORD', `A password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new AppError('WEAK_PASSWORD', `A password has at most ${MAX_PASSWORD_LENGTH} characters`);
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || COMMON.has(lower.replace(/[\d!@#$%^&*?.]+$/, ''))) throw new AppError('WEAK_PASSWORD', 'This password is on a list of common passwords');
  const local = email.split('@')[0].toLowerCase();
  if (local.length >= 4 && lower.includes(local)) throw new AppError('WEAK_PASSWORD', 'A password must not contain the email address');
  if (new Set(password).size < 5) throw new AppError('WEAK_PASSWORD', 'A password needs at least 5 different characters');
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Checked when the email is unknown, so the answer takes as long as for a known one. */
let decoy: Promise<string> | null = null;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword('decoy password that no account has');
  await verifyPassword(await decoy, password);
  return false;
}
