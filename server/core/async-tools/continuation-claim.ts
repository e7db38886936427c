import { randomUUID } from 'node:crypto';
import type { DispatchGroup } from './async-tool-result.js';

/**
 * The one claim rule of a continuation: a group's continuation is claimed once, when the group
 * is sealed (its pass registered every call), has external calls and none of them is still
 * processing, was not cancelled, and holds no claim yet. A settlement, a seal and recovery
 * all ask this, on the group as their write will leave it.
 */
export function mayClaimContinuation(group: DispatchGroup, pendingCount: number): boolean {
  return group.sealed && pendingCount === 0 && !group.continuation && !group.cancelledAt && group.resultIds.length > 0;
}

/**
 * The group with its continuation claimed when `mayClaimContinuation` allows it (a fresh
 * continuation event id, the de-duplication key of the run), else the group as it was.
 */
export function claimContinuation(group: DispatchGroup, pendingCount: number, now: string): { group: DispatchGroup; claimed: boolean } {
  if (!mayClaimContinuation(group, pendingCount)) return { group, claimed: false };
  return { group: { ...group, continuation: { continuationEventId: `evt_cont_${randomUUID()}`, state: 'claimed', claimedAt: now }, updatedAt: now }, claimed: true };
}
