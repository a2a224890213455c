import { failureReason, readFailureReason } from './failure-reason';

describe('failure reasons', () => {
  it('When the worker wrote a relay code, then the request reads the same code and message back', () => {
    expect(readFailureReason(failureReason('PROVIDER_API_FAILURE', 'Casino failed the round-ended with HTTP 500: x'))).toEqual({
      code: 'PROVIDER_API_FAILURE',
      message: 'Casino failed the round-ended with HTTP 500: x',
    });
  });

  it('When BullMQ failed a job that stalled too often, then it reads as a time-out', () => {
    expect(readFailureReason('job stalled more than allowable limit').code).toBe('INTEGRATION_TIMED_OUT');
  });

  it('When the reason is anything else, then it is an internal error without the raw text', () => {
    expect(readFailureReason('TypeError: boom')).toEqual({ code: 'INTERNAL_ERROR', message: 'The delivery failed inside the relay' });
    expect(readFailureReason(undefined).code).toBe('INTERNAL_ERROR');
    expect(readFailureReason('BAD_REQUEST: not ours').code).toBe('INTERNAL_ERROR');
  });
});
