import { CompactEncrypt, importSPKI, type KeyLike } from 'jose';

/**
 * Builds the game frontend address (spec Launch, rules 1-7): the registered frontendUrl with its
 * own query parameters kept and winning any clash, sessionId in the clear, the token dropped, and
 * every other launch parameter forwarded verbatim, or sealed in `payload` when the game provider
 * published an RSA key.
 */
export async function buildRedirect(
  frontendUrl: string,
  rawLaunchQuery: string,
  sessionId: string,
  publicKey: KeyLike | null,
): Promise<string> {
  const target = new URL(frontendUrl);
  const own = new Set(target.searchParams.keys());
  const relayNames = new Set(['sessionId', ...(publicKey ? ['payload'] : [])]);
  const reserved = new Set(['token', ...relayNames]);
  // Raw `name=value` pieces, exactly as written: decoding and re-encoding would turn %20 into '+'
  // and ~ into %7E, which a frontend reading values with decodeURIComponent sees as other values.
  const forwarded = queryPieces(rawLaunchQuery).filter((piece) => !reserved.has(pieceName(piece)) && !own.has(pieceName(piece)));
  const clear = [...queryPieces(target.search.slice(1)).filter((piece) => !relayNames.has(pieceName(piece))), `sessionId=${encodeURIComponent(sessionId)}`];
  if (!publicKey) {
    clear.push(...forwarded);
  } else if (forwarded.length > 0) {
    const jwe = await new CompactEncrypt(new TextEncoder().encode(forwarded.join('&')))
      .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'application/x-www-form-urlencoded' })
      .encrypt(publicKey);
    clear.push(`payload=${jwe}`);
  }
  target.search = clear.join('&');
  return target.toString();
}

function queryPieces(rawQuery: string): string[] {
  return rawQuery.split('&').filter((piece) => piece !== '');
}

/** The decoded name of one `name=value` piece, as a frontend's URLSearchParams reads it. */
function pieceName(piece: string): string {
  return new URLSearchParams(piece).keys().next().value ?? '';
}

const keyCache = new Map<string, Promise<KeyLike>>();

/** Imported keys are cached by their PEM text, so rotation (a new PEM) takes effect at once. */
export function importLaunchPublicKey(pem: string): Promise<KeyLike> {
  let key = keyCache.get(pem);
  if (!key) {
    key = importSPKI(pem, 'RSA-OAEP-256');
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(pem, key);
  }
  return key;
}
