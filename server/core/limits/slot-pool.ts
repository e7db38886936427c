/** What asking for a slot gives: one to give back, or none because `active` holders have them all. */
export type SlotOutcome = { taken: true; giveBack: () => void } | { taken: false; active: number };

/**
 * At most `capacity` holders per key at once (the concurrent direct turns of an account). In
 * one process a count in memory; across replicas one lease row per held slot in the shared
 * database, renewed while held, so a killed replica's slots free themselves within a lease.
 */
export interface SlotPool {
  /** Take a slot of `key`'s pool if one is free. `giveBack` may be called more than once. */
  take(key: string): Promise<SlotOutcome>;
}

/** `giveBack` that does its work the first time it is called and nothing after. */
export function onlyOnce(giveBack: () => void): () => void {
  let given = false;
  return () => {
    if (given) return;
    given = true;
    giveBack();
  };
}

/** One process's slots: a count per key in memory. */
export class MemorySlotPool implements SlotPool {
  private readonly active = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  async take(key: string): Promise<SlotOutcome> {
    const active = this.active.get(key) ?? 0;
    if (active >= this.capacity) return { taken: false, active };
    this.active.set(key, active + 1);
    return {
      taken: true,
      giveBack: onlyOnce(() => {
        const remaining = (this.active.get(key) ?? 1) - 1;
        if (remaining > 0) this.active.set(key, remaining);
        else this.active.delete(key);
      }),
    };
  }
}
