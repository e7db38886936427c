/** A turn that runs in some replica, as cancel requests find it. */
export interface RunningTurn {
  turnId: string;
  eventId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
}

/** What a cancel request names: a turn by its event id, or the turn running on a conversation. */
export type CancelTarget = { accountId: string; eventId: string } | { accountId: string; agentId: string; conversationKey: string };

/**
 * The turns that run now, across replicas. A turn registers itself while it runs, with the
 * function that stops it; a cancel request, received by any replica, marks the turn it names
 * and the replica that runs it calls that function.
 */
export interface RunningTurns {
  /** A turn of this process starts; `abort` stops it when a cancel reaches it. Returns the function to call when it ends. */
  register(turn: RunningTurn, abort: () => void): () => void;
  /** Ask the running turn that `target` names to stop, wherever it runs: the turn, or undefined when none runs. */
  requestCancel(target: CancelTarget): Promise<RunningTurn | undefined>;
  /** The turn running on `target`'s conversation or event, wherever it runs, without touching it. */
  findRunning(target: CancelTarget): Promise<RunningTurn | undefined>;
}

export function matchesTarget(turn: RunningTurn, target: CancelTarget): boolean {
  if (turn.accountId !== target.accountId) return false;
  if ('eventId' in target) return turn.eventId === target.eventId;
  return turn.agentId === target.agentId && turn.conversationKey === target.conversationKey;
}

/** One process: the registry is the whole truth, and a cancel calls the turn's abort at once. */
export class InMemoryRunningTurns implements RunningTurns {
  private readonly turns = new Map<string, { turn: RunningTurn; abort: () => void }>();

  register(turn: RunningTurn, abort: () => void): () => void {
    this.turns.set(turn.turnId, { turn, abort });
    return () => {
      this.turns.delete(turn.turnId);
    };
  }

  findRunning(target: CancelTarget): Promise<RunningTurn | undefined> {
    return Promise.resolve(this.find(target)?.turn);
  }

  /** The running turn of this process that `target` names, without stopping it. */
  find(target: CancelTarget): { turn: RunningTurn; abort: () => void } | undefined {
    for (const entry of this.turns.values()) if (matchesTarget(entry.turn, target)) return entry;
    return undefined;
  }

  /** Stop a turn of this process by id (a cancel heard from another replica). True when it runs here. */
  abortLocal(turnId: string): boolean {
    const entry = this.turns.get(turnId);
    entry?.abort();
    return entry !== undefined;
  }

  /** The ids of the turns running in this process. */
  turnIds(): string[] {
    return [...this.turns.keys()];
  }

  requestCancel(target: CancelTarget): Promise<RunningTurn | undefined> {
    const entry = this.find(target);
    entry?.abort();
    return Promise.resolve(entry?.turn);
  }
}
