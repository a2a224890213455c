import { Router } from 'express';
import { z } from 'zod';
import type { BackofficeDeps } from '../domain/deps';
import { handler, pageMeta, sendEnvelope } from '@relay/shared';
import { callerOf } from '../domain/access';
import { createAccount, getAccount, listAccounts, resetSecondFactor, setAccountStatus, updateAccount } from '../domain/accounts';
import { presentAccount } from './present';
import { factsOf, pagination, parse, recordId, uuid } from './validation';

export const scope = z.discriminatedUnion('type', [
  z.object({ type: z.literal('platform') }),
  z.object({ type: z.literal('casino'), providerId: recordId }),
  z.object({ type: z.literal('studio'), groupId: recordId }),
]);

export const accountBody = z.object({
  email: z.string().trim().max(320).email(),
  displayName: z.string().trim().min(1).max(200),
  password: z.string().max(1024),
  role: z.enum(['admin', 'support', 'finance']),
  scope,
});

export const accountPath = z.object({ accountId: uuid });
export const accountChange = accountBody.pick({ displayName: true, role: true, scope: true });

/** Platform admins manage accounts; every change is audited and a disable ends live sessions at once. */
export function accountRoutes(deps: BackofficeDeps): Router {
  return Router()
    .post('/accounts', handler(async (req, res) => {
      const created = await createAccount(deps, factsOf(req), parse(accountBody, req.body));
      sendEnvelope(res, 201, 'Account created; the person enrols a second factor at first sign-in', presentAccount(created));
    }))
    .get('/accounts', handler(async (req, res) => {
      const { page, limit } = parse(pagination, req.query);
      const { total, accounts } = await listAccounts(deps, callerOf(req.identity), { limit, offset: (page - 1) * limit });
      sendEnvelope(res, 200, 'Accounts fetched successfully', accounts.map(presentAccount), pageMeta(total, page, limit));
    }))
    .get('/accounts/:accountId', handler(async (req, res) => {
      const { accountId } = parse(accountPath, req.params);
      sendEnvelope(res, 200, 'Account fetched successfully', presentAccount(await getAccount(deps, callerOf(req.identity), accountId)));
    }))
    .put('/accounts/:accountId', handler(async (req, res) => {
      const { accountId } = parse(accountPath, req.params);
      const updated = await updateAccount(deps, factsOf(req), accountId, parse(accountChange, req.body));
      sendEnvelope(res, 200, 'Account saved; a change of role or scope ended its sessions', presentAccount(updated));
    }))
    .post('/accounts/:accountId/disable', handler(async (req, res) => {
      const { accountId } = parse(accountPath, req.params);
      sendEnvelope(res, 200, 'Account disabled; its sessions have ended', presentAccount(await setAccountStatus(deps, factsOf(req), accountId, 'DISABLED')));
    }))
    .post('/accounts/:accountId/enable', handler(async (req, res) => {
      const { accountId } = parse(accountPath, req.params);
      sendEnvelope(res, 200, 'Account enabled', presentAccount(await setAccountStatus(deps, factsOf(req), accountId, 'ACTIVE')));
    }))
    .post('/accounts/:accountId/reset-second-factor', handler(async (req, res) => {
      const { accountId } = parse(accountPath, req.params);
      sendEnvelope(res, 200, 'Second factor reset; the person enrols again at next sign-in', presentAccount(await resetSecondFactor(deps, factsOf(req), accountId)));
    }));
}
