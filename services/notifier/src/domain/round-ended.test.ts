import type { Casino } from '@relay/shared';
import type { Delivery } from './delivery';
import { notifyRoundEnded, type RoundEndedDeps, type RoundEndedNotice } from './round-ended';

function casino(providerId: string, status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE'): Casino {
  return { providerId, name: providerId, walletUrl: 'http://casino.test', walletSecret: 's', launchKey: 'k', status, refundOnCreditFail: false, creditOnDisconnect: false, freeRoundsMode: 'passthrough', createdAt: '' };
}

function deps(casinos: Casino[], outcome: (n: RoundEndedNotice) => Delivery = (n) => ({ providerId: n.providerId, ok: true })) {
  const sent: RoundEndedNotice[] = [];
  const d: RoundEndedDeps = {
    casinos: { casino: async (id) => casinos.find((c) => c.providerId === id) ?? null },
    delivery: {
      deliverAll: async (notices) => {
        sent.push(...notices);
        return notices.map(outcome);
      },
    },
  };
  return { d, sent };
}

describe('notifyRoundEnded', () => {
  it('When a casino is named twice, then it is notified once', async () => {
    const { d, sent } = deps([casino('a'), casino('b')]);
    await notifyRoundEnded(d, 'g', { roundId: 'r1', providerIds: ['a', 'b', 'a'] });
    expect(sent).toEqual([
      { providerId: 'a', groupId: 'g', roundId: 'r1' },
      { providerId: 'b', groupId: 'g', roundId: 'r1' },
    ]);
  });

  it('When one named casino is unknown, then 404 PROVIDER_NOT_FOUND and nobody is notified', async () => {
    const { d, sent } = deps([casino('a')]);
    await expect(notifyRoundEnded(d, 'g', { roundId: 'r1', providerIds: ['a', 'x'] })).rejects.toMatchObject({ code: 'PROVIDER_NOT_FOUND', status: 404 });
    expect(sent).toEqual([]);
  });

  it('When one named casino is inactive, then 403 PROVIDER_NOT_ACTIVE and nobody is notified', async () => {
    const { d, sent } = deps([casino('a'), casino('b', 'INACTIVE')]);
    await expect(notifyRoundEnded(d, 'g', { roundId: 'r1', providerIds: ['a', 'b'] })).rejects.toMatchObject({ code: 'PROVIDER_NOT_ACTIVE', status: 403 });
    expect(sent).toEqual([]);
  });

  it('When one casino fails during delivery, then the others are notified and its error is the answer', async () => {
    const { d, sent } = deps([casino('a'), casino('b')], (n) =>
      n.providerId === 'b' ? { providerId: 'b', ok: false, code: 'PROVIDER_API_FAILURE', message: 'HTTP 500' } : { providerId: n.providerId, ok: true },
    );
    await expect(notifyRoundEnded(d, 'g', { roundId: 'r1', providerIds: ['a', 'b'] })).rejects.toMatchObject({ code: 'PROVIDER_API_FAILURE', status: 502 });
    expect(sent.map((n) => n.providerId)).toEqual(['a', 'b']);
  });
});
