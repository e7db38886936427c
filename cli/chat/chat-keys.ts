import type { ApprovalAnswer } from './chat-stream-source.js';
import type { ApprovalRequest } from './chat-transcript.js';

/**
 * The keyboard side of the interactive chat as a pure reducer: every keypress folds into
 * the editing state, so fast typing never reads a stale line. What should happen outside
 * (send text, send approval answers, quit) comes out as `effect`, numbered so the app
 * runs each one once.
 */

/** `cancel`: stop the running turn (Esc or Ctrl-C while a reply streams); the chat stays open. */
export type ChatEffect = { kind: 'send'; text: string } | { kind: 'answer'; answers: ApprovalAnswer[] } | { kind: 'exit' } | { kind: 'cancel' };

export interface KeyState {
  /** The message being typed. */
  input: string;
  /** Answers given so far to the current turn's approval requests. */
  answers: ApprovalAnswer[];
  /** After n: typing the reason for the denial. */
  denying: boolean;
  reason: string;
  effect?: ChatEffect;
  effectId: number;
}

export const initialKeyState: KeyState = { input: '', answers: [], denying: false, reason: '', effectId: 0 };

/** The subset of Ink's `Key` the chat reads. */
export interface KeyFlags {
  return?: boolean;
  backspace?: boolean;
  delete?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

export interface KeyPress {
  typed: string;
  key: KeyFlags;
  /** Approval requests awaiting an answer (none while a stream is open). */
  pending: readonly ApprovalRequest[];
  busy: boolean;
}

const exitCommands = new Set(['/exit', '/quit']);

/** The request being asked about: the first pending one without an answer yet. */
export function currentApproval(state: KeyState, pending: readonly ApprovalRequest[]): ApprovalRequest | undefined {
  return pending.find((request) => !state.answers.some((answer) => answer.approvalId === request.approvalId));
}

function edit(line: string, typed: string, key: KeyFlags): string {
  return key.backspace || key.delete ? line.slice(0, -1) : line + typed;
}

/** A line break that ends what was typed: Enter arriving in the same write as pasted text. */
const lineBreak = /\r\n|\r|\n/;

function withEffect(state: KeyState, effect: ChatEffect): KeyState {
  return { ...state, effect, effectId: state.effectId + 1 };
}

function answer(state: KeyState, given: ApprovalAnswer, pending: readonly ApprovalRequest[]): KeyState {
  const answers = [...state.answers, given];
  const next = { ...state, denying: false, reason: '' };
  // One tool message answers all of the turn's requests, so wait for the last answer.
  return answers.length < pending.length ? { ...next, answers } : withEffect({ ...next, answers: [] }, { kind: 'answer', answers });
}

/**
 * One write from the terminal. Ink reports a lone Enter as `key.return`, but text pasted
 * with its Enter (`hello\r`, or a script writing a whole line) arrives as one string, so a
 * line break in it is an Enter: after `y`/`n` it is ignored (they need none), after a reason
 * it sends the reason, and a message runs up to the last line break (a pasted message of
 * several lines is sent whole, its line breaks kept). Text after the last line break, or
 * after the Enter that sent something, stays in the input.
 */
export function reduceKey(state: KeyState, press: KeyPress): KeyState {
  const { typed, key } = press;
  // Ctrl-C cancels the running turn and stays in the chat; with nothing running it leaves.
  if (key.ctrl && typed === 'c') return withEffect(state, { kind: press.busy ? 'cancel' : 'exit' });
  // Esc while a reply streams cancels the turn (no approval is asked while a stream is open).
  if (key.escape && press.busy) return withEffect(state, { kind: 'cancel' });
  // Ink sets meta for Esc, so Esc is read before modified keys are ignored.
  if (key.escape) return reduceOneKey(state, press);
  if (key.ctrl || key.meta) return state;
  if (key.return || !lineBreak.test(typed)) return reduceOneKey(state, press);
  const type = (current: KeyState, text: string): KeyState => (text === '' ? current : reduceOneKey(current, { ...press, typed: text }));
  const enter = (current: KeyState): KeyState => reduceOneKey(current, { ...press, typed: '\r', key: { return: true } });
  let next = state;
  let rest = typed;
  for (let found = rest.match(lineBreak); found?.index !== undefined; found = rest.match(lineBreak)) {
    // One effect per write: what follows the Enter that caused it stays in the input (the
    // pending requests of this press are answered by now, so it cannot be read as y/n).
    if (next.effectId !== state.effectId) return { ...next, input: next.input + rest.replace(/\r\n?/g, '\n') };
    const request = currentApproval(next, press.pending);
    if (!request) {
      const lastBreak = [...rest.matchAll(new RegExp(lineBreak, 'g'))].at(-1) ?? found;
      const end = (lastBreak.index ?? 0) + lastBreak[0].length;
      next = enter(type(next, rest.slice(0, lastBreak.index).replace(new RegExp(lineBreak, 'g'), '\n')));
      rest = rest.slice(end);
      break;
    }
    const line = rest.slice(0, found.index);
    rest = rest.slice(found.index + found[0].length);
    next = next.denying ? enter(type(next, line)) : type(next, line.trim());
  }
  return type(next, rest);
}

function reduceOneKey(state: KeyState, { typed, key, pending, busy }: KeyPress): KeyState {
  const request = currentApproval(state, pending);
  if (request && !state.denying) {
    const choice = typed.toLowerCase();
    if (choice === 'y') return answer(state, { approvalId: request.approvalId, approved: true }, pending);
    if (choice === 'n') return { ...state, denying: true, reason: '' };
    return state;
  }
  if (request) {
    if (key.escape) return { ...state, denying: false, reason: '' };
    if (!key.return) return { ...state, reason: edit(state.reason, typed, key) };
    const reason = state.reason.trim();
    return answer(state, { approvalId: request.approvalId, approved: false, ...(reason ? { reason } : {}) }, pending);
  }
  if (!key.return) return { ...state, input: edit(state.input, typed, key) };
  const text = state.input.trim();
  if (exitCommands.has(text)) return withEffect({ ...state, input: '' }, { kind: 'exit' });
  if (text === '' || busy) return state;
  return withEffect({ ...state, input: '' }, { kind: 'send', text });
}
