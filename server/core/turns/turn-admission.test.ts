import { describe, expect, it } from 'vitest';
import { AccountDisabledError } from '../accounts/account-status.js';
import type { Agent } from '../agents/agent.js';
import { InvalidRequestError, NotFoundError, RateLimitedError } from '../errors.js';
import type { SlotPool } from '../limits/slot-pool.js';
import { transportKinds } from '../transports/transports.js';
import { TurnAdmission } from './turn-admission.js';
import type { TurnLimits, TurnRequest } from './turn-types.js';

/** An account check that records the accounts it was asked about and refuses those in `disabled`. */
function recordingCheck(disabled: Set<string>) {
  const asked: string[] = [];
  const check = async (accountId: string) => {
    asked.push(accountId);
    if (disabled.has(accountId)) throw new AccountDisabledError(accountId);
  };
  return { asked, check };
}

describe('TurnAdmission.checkAccount', () => {
  it('reads the account when the request read nothing (webhooks, cron, the worker, continuations)', async () => {
    const { asked, check } = recordingCheck(new Set(['acc_off']));
    const admission = new TurnAdmission({ accountCheck: check });
    await admission.checkAccount('acc_on');
    await expect(admission.checkAccount('acc_off')).rejects.toBeInstanceOf(AccountDisabledError);
    expect(asked).toEqual(['acc_on', 'acc_off']);
  });

  it('takes the enabled row the request itself read for the same account, without reading it again', async () => {
    const { asked, check } = recordingCheck(new Set());
    const admission = new TurnAdmission({ accountCheck: check });
    await admission.checkAccount('acc_on', { accountId: 'acc_on', disabled: false });
    expect(asked).toEqual([]);
  });

  it('reads the account again when the request read another account, or a disabled one', async () => {
    const { asked, check } = recordingCheck(new Set(['acc_off']));
    const admission = new TurnAdmission({ accountCheck: check });
    await expect(admission.checkAccount('acc_off', { accountId: 'acc_on', disabled: false })).rejects.toBeInstanceOf(AccountDisabledError);
    await expect(admission.checkAccount('acc_off', { accountId: 'acc_off', disabled: true })).rejects.toBeInstanceOf(AccountDisabledError);
    expect(asked).toEqual(['acc_off', 'acc_off']);
  });
});

const limits: TurnLimits = { maxConcurrentTurnsPerAccount: 1, maxMessageCharacters: 1_000, maxConversationMessages: 100, maxToolOutputBytes: 1_000 };

function request(accountId = 'acc_on'): TurnRequest {
  return { accountId, agentId: 'helper', conversationKey: 'c1', transport: 'sse', approvalPolicy: 'ask', input: { kind: 'user', message: { role: 'user', content: 'hi' } } };
}

const agent: Agent = { accountId: 'acc_on', agentId: 'helper', config: {} as Agent['config'], createdAt: 'then', updatedAt: 'then' };

/** A slot pool of one slot per account that records when a take starts and ends. */
function recordingSlots(events: string[]): SlotPool & { held: number } {
  const pool = {
    held: 0,
    async take() {
      events.push('slot started');
      await Promise.resolve();
      events.push('slot done');
      if (pool.held >= 1) return { taken: false as const, active: pool.held };
      pool.held += 1;
      return { taken: true as const, giveBack: () => (pool.held -= 1) };
    },
  };
  return pool;
}

describe('TurnAdmission.admit', () => {
  it('reads the agent and takes the slot together, not one after the other', async () => {
    const events: string[] = [];
    const admission = new TurnAdmission({ limits, slots: recordingSlots(events) });
    const loadAgent = async () => {
      events.push('agent started');
      await Promise.resolve();
      events.push('agent done');
      return agent;
    };
    const admitted = await admission.admit(request(), loadAgent);
    expect(admitted.agent).toBe(agent);
    expect(events.slice(0, 2).sort()).toEqual(['agent started', 'slot started']);
  });

  it('refuses as the checks one at a time would (account, then agent, then slot), and gives back a slot it took', async () => {
    const slots = recordingSlots([]);
    const { check } = recordingCheck(new Set(['acc_off']));
    const admission = new TurnAdmission({ limits, slots, accountCheck: check });
    const missing = async (): Promise<Agent> => {
      throw new NotFoundError('No agent "helper" in this account.');
    };
    await expect(admission.admit(request('acc_off'), missing)).rejects.toBeInstanceOf(AccountDisabledError);
    await expect(admission.admit(request(), missing)).rejects.toBeInstanceOf(NotFoundError);
    expect(slots.held).toBe(0);
    const first = await admission.admit(request(), async () => agent);
    // The slot is the last refusal: the only one left is the slot itself.
    await expect(admission.admit(request(), async () => agent)).rejects.toBeInstanceOf(RateLimitedError);
    await expect(admission.admit(request(), missing)).rejects.toBeInstanceOf(NotFoundError);
    first.giveBack();
    expect(slots.held).toBe(0);
  });
});

describe('TurnAdmission per transport (the transports table)', () => {
  const withExternalDispatch: Agent = { ...agent, config: { tools: { lookup: { async: true, execution: 'external-dispatch' } } } as unknown as Agent['config'] };

  it('takes a concurrent-turn slot only for the transports a person waits on', async () => {
    const taken: string[] = [];
    for (const transport of transportKinds) {
      const slots = recordingSlots([]);
      const admission = new TurnAdmission({ limits, slots });
      const giveBack = await admission.takeSlot('acc_on', transport);
      if (slots.held > 0) taken.push(transport);
      giveBack();
    }
    expect(taken).toEqual(['sse', 'json', 'nats']);
  });

  it('refuses an agent with external-dispatch tools on SSE only', () => {
    const admission = new TurnAdmission({});
    const refused = transportKinds.filter((transport) => {
      try {
        admission.checkTransport(withExternalDispatch, transport);
        return false;
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidRequestError);
        return true;
      }
    });
    expect(refused).toEqual(['sse']);
    expect(() => admission.checkTransport(agent, 'sse')).not.toThrow();
  });
});
