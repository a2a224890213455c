import { auditBody, AUDIT_BODY_BYTES, interpretCasinoAnswer, topLevelNumberText } from './answer';

describe('casino answer interpretation', () => {
  it('When a balance is a JSON number, then its exact digits are found in the raw text', () => {
    expect(topLevelNumberText('{"balance":2.675}', 'balance')).toBe('2.675');
    expect(topLevelNumberText('{"x":{"balance":1},"balance" : -3e2, "y":[{"balance":4}]}', 'balance')).toBe('-3e2');
    expect(topLevelNumberText('{"note":"\\"balance\\":9","balance":7}', 'balance')).toBe('7');
    expect(topLevelNumberText('{"bal\\u0061nce":5}', 'balance')).toBe('5');
    expect(topLevelNumberText('[{"balance":1}]', 'balance')).toBeUndefined();
    expect(topLevelNumberText('{"balance":1,"balance":2}', 'balance')).toBe('2');
  });

  it('When the casino writes more digits than a double holds, then rounding uses the digits written', () => {
    const r = interpretCasinoAnswer('balance', 200, '{"balance":2.67499999999999999}');
    expect(r.ok && 'balance' in r && r.balance).toBe(2.67);
  });

  it('When an audit body is longer than 2 KiB, then it is cut to 2 KiB without a broken character', () => {
    const cut = auditBody('é'.repeat(3000));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(AUDIT_BODY_BYTES);
    expect(cut).not.toContain('\uFFFD');
    expect(auditBody('short')).toBe('short');
  });
});

describe('casino answer secrets', () => {
  it('When the wallet token is short, then the relay text of the message is not mangled, and the casino body is still scrubbed', () => {
    const r = interpretCasinoAnswer('balance', 401, '{"error":"bad token 4"}', ['4']);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toBe("Casino rejected the player's wallet token on the balance: HTTP 401");
    expect(r.casinoBody).toBe('{"error":"bad token [redacted]"}');
  });
});

describe('casino balance range', () => {
  it('When a casino answers a balance too large to store exactly, then it is INVALID_PROVIDER_RESPONSE, not a later overflow', () => {
    // 99999999999999.99 has no double of its own: the game would be answered ...98.
    for (const body of ['{"balance":1e18}', '{"balance":"1000000000000000"}', '{"balance":999999999999999999999}', '{"balance":"99999999999999.99"}', '{"balance":10000000000000}']) {
      const r = interpretCasinoAnswer('debit', 200, body);
      expect({ body, ok: r.ok, code: r.ok ? null : r.error.code }).toEqual({ body, ok: false, code: 'INVALID_PROVIDER_RESPONSE' });
    }
    const fine = interpretCasinoAnswer('debit', 200, '{"balance":"9999999999999.99"}');
    expect(fine).toMatchObject({ ok: true, balance: 9999999999999.99 });
  });
});
