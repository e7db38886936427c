import type { AccountStatusCheck } from '../accounts/account-status.js';
import type { Agent } from '../agents/agent.js';
import { InvalidRequestError, PayloadTooLargeError, RateLimitedError } from '../errors.js';
import { MemorySlotPool, type SlotPool } from '../limits/slot-pool.js';
import { isEnabled } from '../tools/build-tools.js';
import { type TransportKind, transports } from '../transports/transports.js';
import type { AccountUsage } from '../usage/account-usage.js';
import type { RunTokenBudget } from '../usage/run-token-budget.js';
import type { TurnInput } from './turn-input.js';
import type { AccountReading, TurnLimits, TurnRequest } from './turn-types.js';

/** A turn that passed admission: its agent, its run's token budget, and the slot to give back when it ends. */
export interface AdmittedTurn {
  agent: Agent;
  budget: RunTokenBudget | undefined;
  giveBack: () => void;
}

function messageCharacters(input: TurnInput | undefined): number {
  if (input?.kind !== 'user') return 0;
  const content = input.message.content;
  if (typeof content === 'string') return content.length;
  return content.reduce((total, part) => total + (part.type === 'text' ? part.text.length : 0), 0);
}

/** Whether an agent has an enabled tool that hands its work to an external worker. */
export function usesExternalDispatch(agent: Agent): string | undefined {
  for (const [name, toolConfig] of Object.entries(agent.config.tools ?? {})) {
    if (isEnabled(toolConfig) && toolConfig.async === true && toolConfig.execution === 'external-dispatch') return name;
  }
  return undefined;
}

export interface TurnAdmissionOptions {
  limits?: TurnLimits;
  /**
   * Refuses a disabled account. Every turn passes here (webhooks, cron, the background
   * worker, continuations, subagents, NATS), so no driver can forget the check.
   */
  accountCheck?: AccountStatusCheck;
  /**
   * Where the concurrent-turn slots are counted (default: in memory, `maxConcurrentTurnsPerAccount`
   * per account); across replicas, the coordination's shared pool.
   */
  slots?: SlotPool;
  /** Opens each run's daily token budget, which refuses a new turn or an approval answer once it is spent (429). */
  tokenBudget?: Pick<AccountUsage, 'openRunBudget'>;
}

/**
 * Whether a turn may start: the account is enabled, the message is within the size limit,
 * an SSE request does not meet an external-dispatch tool it could not wait for, and the
 * account has a free slot for a turn a person waits on.
 */
export class TurnAdmission {
  private readonly slots: SlotPool | undefined;

  constructor(private readonly options: TurnAdmissionOptions) {
    this.slots = options.slots ?? (options.limits ? new MemorySlotPool(options.limits.maxConcurrentTurnsPerAccount) : undefined);
  }

  /**
   * Everything a user message or approval answers passes before its turn starts: the input's
   * size, the account, the daily token budget, the agent (`loadAgent`), the transport, and a
   * concurrent-turn slot. The reads do not depend on each other, so they are issued together
   * (on PostgreSQL each is a round trip; one after another they were most of the wait before
   * the model call). A refusal is the one the checks made one at a time would give (the same
   * order: account, budget, agent, transport, slot), and a slot taken meanwhile is given back.
   */
  async admit(request: TurnRequest, loadAgent: () => Promise<Agent>): Promise<AdmittedTurn> {
    this.checkInput(request.input);
    const { accountId, input, accountReadByRequest, transport } = request;
    const [account, budget, agent, slot] = await Promise.allSettled([
      this.checkAccount(accountId, accountReadByRequest),
      // Approval answers too: each one runs the model again, so a spent budget refuses it (429).
      this.openBudget(accountId, input, accountReadByRequest),
      loadAgent(),
      this.takeSlot(accountId, transport),
    ]);
    const giveBack = slot.status === 'fulfilled' ? slot.value : () => undefined;
    try {
      if (account.status === 'rejected') throw account.reason;
      if (budget.status === 'rejected') throw budget.reason;
      if (agent.status === 'rejected') throw agent.reason;
      this.checkTransport(agent.value, transport);
      if (slot.status === 'rejected') throw slot.reason;
      return { agent: agent.value, budget: budget.value, giveBack };
    } catch (error) {
      giveBack();
      throw error;
    }
  }

  /** Refuse input over the size limit (413), before anything is queued or stored. */
  checkInput(input: TurnInput | undefined): void {
    const limits = this.options.limits;
    const characters = messageCharacters(input);
    if (limits && characters > limits.maxMessageCharacters) {
      throw new PayloadTooLargeError(`message has ${characters} characters; the limit is ${limits.maxMessageCharacters}`);
    }
  }

  /**
   * Refuses a disabled account (`AccountDisabledError`). A row the same request read moments
   * ago (its bearer check, which refuses a disabled account too) stands for a second read:
   * both are as fresh, and on PostgreSQL the second would cost a round trip per turn.
   */
  async checkAccount(accountId: string, readByRequest?: AccountReading): Promise<void> {
    if (readByRequest && readByRequest.accountId === accountId && !readByRequest.disabled) return;
    await this.options.accountCheck?.(accountId);
  }

  /**
   * The run's daily token budget, which its execution checks before every model call. A run
   * with input (a user message, approval answers) is refused at once (429) when the budget is
   * spent; a continuation (no input) is not refused here: it ends itself, `failed`, before its
   * first model call, so its status row and its group are closed as for any other end.
   */
  async openBudget(accountId: string, input: TurnInput | undefined, readByRequest?: AccountReading): Promise<RunTokenBudget | undefined> {
    const sameAccount = readByRequest?.accountId === accountId ? readByRequest : undefined;
    return this.options.tokenBudget?.openRunBudget(accountId, { refuseWhenSpent: input !== undefined, ...(sameAccount ? { readByRequest: sameAccount } : {}) });
  }

  /** Refuses a transport that cannot carry this agent's tools (the transports table's `externalDispatch`). */
  checkTransport(agent: Agent, transport: TransportKind): void {
    if (transports[transport].externalDispatch) return;
    const tool = usesExternalDispatch(agent);
    if (tool) {
      throw new InvalidRequestError(
        `config.tools.${tool} uses execution "external-dispatch", which an SSE request cannot wait for: send the request without Accept: text/event-stream (JSON), or use /agents/{agentId}/async or NATS`,
      );
    }
  }

  /**
   * Takes one of the account's concurrent-turn slots for an interactive transport (one a
   * person waits on, per the transports table; 429 when none is free). Returns the function
   * that gives it back; background transports take none.
   */
  async takeSlot(accountId: string, transport: TransportKind): Promise<() => void> {
    const limits = this.options.limits;
    if (!limits || !this.slots || !transports[transport].interactive) return () => undefined;
    const outcome = await this.slots.take(accountId);
    if (!outcome.taken) {
      throw new RateLimitedError(`This account already has ${outcome.active} turns running; the limit is ${limits.maxConcurrentTurnsPerAccount}.`, 1);
    }
    return outcome.giveBack;
  }
}
