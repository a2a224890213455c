import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** RFC 6238 with the parameters every authenticator app supports: SHA-1, 6 digits, 30 seconds. */
const ISSUER = 'Game Relay';

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secretBase32) });
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export async function enrolment(secretBase32: string, email: string): Promise<{ secret: string; otpauthUri: string; qrCodeSvg: string; qrCodeDataUrl: string }> {
  const otpauthUri = totpFor(secretBase32, email).toString();
  return {
    secret: secretBase32,
    otpauthUri,
    qrCodeSvg: await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M' }),
    qrCodeDataUrl: await QRCode.toDataURL(otpauthUri, { errorCorrectionLevel: 'M' }),
  };
}

/**
 * The time step a code belongs to, within one step either side for clock drift; null when the
 * code is wrong. The caller refuses a step it has already accepted (a code works once).
 */
export function matchingStep(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32, 'x').validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 30000) + delta;
}

/** For tests and the demo: the current code of a secret. */
export function currentCode(secretBase32: string, now = Date.now()): string {
  return totpFor(secretBase32, 'x').generate({ timestamp: now });
}
