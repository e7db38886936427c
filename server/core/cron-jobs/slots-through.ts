import { nextFireTime, type Schedule } from '../schedule-expressions/index.js';

/** How far a count of missed slots goes before it stops counting (every minute for ~69 days). */
export const missedSlotCountLimit = 100_000;

export interface SlotsThrough {
  /** Slots from the due one up to `now`, both included (at least 1). */
  missedSlots: number;
  /** The latest of them. */
  lastMissedSlot: number;
  /** The first slot after `now`, or null when the schedule has nothing left. */
  next: number | null;
}

/**
 * The slots that are due at `now`, starting from `slot` (which is due): normally just that
 * one; after downtime (or a process that slept) every slot that passed meanwhile. They fire
 * as one run, and the schedule goes on from the first slot after `now`.
 */
export function slotsThrough(schedule: Schedule, timezone: string, slot: number, now: number, anchor: Date): SlotsThrough {
  if (schedule.kind === 'rate') {
    // Absolute time: the slots are a grid from the anchor, no need to walk them.
    const periodMs = schedule.periodMinutes * 60_000;
    const missedSlots = Math.floor((now - slot) / periodMs) + 1;
    const next = nextFireTime(schedule, timezone, new Date(now), anchor);
    return { missedSlots, lastMissedSlot: slot + (missedSlots - 1) * periodMs, next: next?.getTime() ?? null };
  }
  let missedSlots = 1;
  let lastMissedSlot = slot;
  // Usually the first candidate is already after `now`: one evaluation per fire.
  let candidate = nextFireTime(schedule, timezone, new Date(slot), anchor);
  while (candidate && candidate.getTime() <= now) {
    if (missedSlots >= missedSlotCountLimit) {
      candidate = nextFireTime(schedule, timezone, new Date(now), anchor);
      break;
    }
    missedSlots += 1;
    lastMissedSlot = candidate.getTime();
    candidate = nextFireTime(schedule, timezone, candidate, anchor);
  }
  return { missedSlots, lastMissedSlot, next: candidate?.getTime() ?? null };
}
