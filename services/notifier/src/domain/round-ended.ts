import { AppError, type Casino } from '@relay/shared';
import { deliveryFailure, type Delivery } from './delivery';

export interface RoundEndedRequest {
  roundId: string;
  providerIds: string[];
}

/** The notification one casino receives (docs/api/casino.json: round-ended body). */
export interface RoundEndedNotice {
  providerId: string;
  groupId: string;
  roundId: string;
}

/** Delivers notices to casinos and reports each one's outcome; never throws for a casino's failure. */
export interface RoundEndedDelivery {
  deliverAll(notices: RoundEndedNotice[]): Promise<Delivery[]>;
}

export interface RoundEndedDeps {
  casinos: { casino(providerId: string): Promise<Casino | null> };
  delivery: RoundEndedDelivery;
  /** Keeps each casino's result for the round's story (data/notifications.ts). */
  journal?: { record(groupId: string, roundId: string, deliveries: Delivery[]): Promise<void> };
}

/**
 * Spec, Round-ended: every named casino is resolved before the first notification, so an unknown
 * or inactive one fails the whole call and nobody is notified. Then each distinct casino is
 * notified once; a casino's failure does not stop the others, and its error is the answer.
 */
export async function notifyRoundEnded(deps: RoundEndedDeps, groupId: string, request: RoundEndedRequest): Promise<void> {
  const providerIds = [...new Set(request.providerIds)];
  await requireNotifiable(deps, providerIds);
  const deliveries = await deps.delivery.deliverAll(providerIds.map((providerId) => ({ providerId, groupId, roundId: request.roundId })));
  await deps.journal?.record(groupId, request.roundId, deliveries);
  const failure = deliveryFailure(deliveries);
  if (failure) throw failure;
}

/** The first casino, in the caller's order, that cannot be notified decides the error. */
async function requireNotifiable(deps: RoundEndedDeps, providerIds: string[]): Promise<void> {
  const casinos = await Promise.all(providerIds.map((id) => deps.casinos.casino(id)));
  providerIds.forEach((providerId, i) => {
    const casino = casinos[i];
    if (!casino) throw new AppError('PROVIDER_NOT_FOUND', `Casino ${providerId} is not registered`);
    if (casino.status !== 'ACTIVE') throw new AppError('PROVIDER_NOT_ACTIVE', `Casino ${providerId} is not active`);
  });
}
