import { busyModes } from '../../../contract/turn-views.js';
import { InvalidRequestError } from '../errors.js';
import { type TransportKind, transports } from '../transports/transports.js';

/**
 * What a new user message does when its conversation already has a turn running
 * (`config.busy` per agent, `busy` per request; docs/busy-conversations.md):
 * - `reject`: refused, 409 `conversation_busy` naming the running run's `eventId`;
 * - `queue`: runs after the running turn, in arrival order (bounded per conversation, 429 past it);
 * - `collect`: gathered with the other messages that arrive during the run, all answered by one next turn;
 * - `steer`: handed to the running turn at its next step boundary; `queue` when it has none left;
 * - `interrupt`: the running turn is cancelled (what it streamed is kept, marked) and this one starts.
 */
export { busyModes };
export type BusyMode = (typeof busyModes)[number];

/** What applied to a message that met a running turn: its mode, and the run it met (or was handed to). */
export interface BusyApplied {
  mode: BusyMode;
  /** The run the message met: the one running (reject, queue, steer, interrupt), or the one that answers it (collect). */
  runEventId: string;
}

/**
 * The mode when neither the request nor the agent chose one, the transports table's
 * `defaultBusy`: a chat user's burst of lines is one question (`collect`); every other way in
 * runs each message in turn (`queue`).
 */
export function defaultBusyMode(transport: TransportKind): BusyMode {
  return transports[transport].defaultBusy;
}

export function isBusyMode(value: unknown): value is BusyMode {
  return typeof value === 'string' && (busyModes as readonly string[]).includes(value);
}

/** A request's or config's `busy`, checked; `field` names it in the 400. */
export function parseBusyMode(value: unknown, field: string): BusyMode | undefined {
  if (value === undefined) return undefined;
  if (!isBusyMode(value)) throw new InvalidRequestError(`${field} must be one of ${busyModes.join(', ')}`);
  return value;
}
