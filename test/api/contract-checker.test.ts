import { ContractChecker, type Answer } from './support/contract';

/** The checker itself: each kind of departure from the reference must fail, or the contract tests prove nothing. */
const contract = new ContractChecker();
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  text: JSON.stringify(body),
  headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
});
const account = { id: 'player-1', balance: 12.5, username: 'Lou' };

describe('the contract checker', () => {
  it('When an answer matches its operation and status, then it passes and is counted', () => {
    contract.check('GET', '/api/account?sessionId=s', json(200, account));
    expect(contract.seen.get('game:getBalance')).toEqual(new Set([200]));
  });

  it('When an answer carries a field the reference does not list, then it fails', () => {
    expect(() => contract.check('GET', '/api/account', json(200, { ...account, walletToken: 'leak' }))).toThrow(/outside the reference.*walletToken|additional/s);
  });

  it('When an answer lacks a required field or has a wrong type, then it fails', () => {
    expect(() => contract.check('POST', '/api/balance/cash-out', json(200, { id: 'p', balance: '12.50', username: 'u' }))).toThrow(/outside the reference/);
    expect(() => contract.check('GET', '/api/v1/rounds', json(200, { statusCode: 200, message: 'ok', data: [] }))).toThrow(/meta/);
  });

  it('When a status is not documented for the operation, then it fails', () => {
    expect(() => contract.check('GET', '/api/v1/providers/ids', json(404, { statusCode: 404, message: 'x', error: 'ROUND_NOT_FOUND', data: null }))).toThrow(/does not document/);
  });

  it('When an error code is not one of its status, then it fails', () => {
    expect(() => contract.check('POST', '/api/balance/cash-in', json(400, { error: 'FUND_WITHDRAW_FAILED', message: 'x' }))).toThrow(/outside the reference/);
  });

  it('When a rate-limited answer has no Retry-After, then it fails', () => {
    const limited = { error: 'RATE_LIMITED', message: 'Too many requests' };
    expect(() => contract.check('GET', '/api/account', json(429, limited))).toThrow(/Retry-After/);
    contract.check('GET', '/api/account', json(429, limited, { 'retry-after': '1' }));
  });

  it('When a route or method is not in the reference, then it fails', () => {
    expect(() => contract.check('GET', '/api/v1/players', json(200, {}))).toThrow(/no operation/);
    expect(() => contract.check('DELETE', '/api/account', json(200, {}))).toThrow(/no operation/);
  });

  it('When nothing was checked for an operation, then it is reported missing', () => {
    expect(contract.missing()).toEqual(expect.arrayContaining(['game:cashOut: no success answer checked', 'admin:putCasino: no error answer checked']));
  });
});
