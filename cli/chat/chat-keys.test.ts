import { describe, expect, it } from 'vitest';
import { currentApproval, initialKeyState, reduceKey, type KeyFlags, type KeyState } from './chat-keys.js';

const requests = [
  { approvalId: 'ap1', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'a' } },
  { approvalId: 'ap2', toolCallId: 't2', toolName: 'alphaSearch', input: { query: 'b' } },
];

function press(state: KeyState, keys: string, options: { pending?: typeof requests; busy?: boolean; key?: KeyFlags } = {}): KeyState {
  let next = state;
  for (const typed of keys) next = reduceKey(next, { typed, key: options.key ?? {}, pending: options.pending ?? [], busy: options.busy ?? false });
  return next;
}
const enter = (state: KeyState, options: { pending?: typeof requests; busy?: boolean } = {}) => press(state, '\r', { ...options, key: { return: true } });

describe('chat keys', () => {
  it('edits the line and sends it on Enter', () => {
    let state = press(initialKeyState, 'helo');
    state = press(state, 'x', { key: { backspace: true } });
    state = enter(press(state, 'lo'));
    expect(state).toMatchObject({ input: '', effect: { kind: 'send', text: 'hello' }, effectId: 1 });
  });

  it('does not send an empty line, nor while a stream is open; /exit quits', () => {
    expect(enter(initialKeyState).effectId).toBe(0);
    expect(enter(press(initialKeyState, 'hi'), { busy: true })).toMatchObject({ input: 'hi', effectId: 0 });
    expect(enter(press(initialKeyState, '/exit')).effect).toEqual({ kind: 'exit' });
  });

  it('collects y and n-with-reason answers, then sends them together', () => {
    const pending = requests;
    let state = press(initialKeyState, 'y', { pending });
    expect(currentApproval(state, pending)?.approvalId).toBe('ap2');
    expect(state.effectId).toBe(0);
    state = press(state, 'n', { pending });
    expect(state.denying).toBe(true);
    state = enter(press(state, 'not b', { pending }), { pending });
    expect(state.effect).toEqual({
      kind: 'answer',
      answers: [
        { approvalId: 'ap1', approved: true },
        { approvalId: 'ap2', approved: false, reason: 'not b' },
      ],
    });
    expect(state).toMatchObject({ answers: [], denying: false, reason: '' });
  });

  it('ignores other keys at the y/n question, and Escape goes back from the reason', () => {
    const pending = requests.slice(0, 1);
    expect(press(initialKeyState, 'q', { pending })).toBe(initialKeyState);
    const denying = press(press(initialKeyState, 'n', { pending }), 'why', { pending });
    expect(denying.reason).toBe('why');
    expect(press(denying, '\u001b', { pending, key: { escape: true } })).toMatchObject({ denying: false, reason: '' });
    expect(enter(press(initialKeyState, 'n', { pending }), { pending }).effect).toEqual({ kind: 'answer', answers: [{ approvalId: 'ap1', approved: false }] });
  });

  it('Escape leaves the reason prompt with the flags Ink gives it (escape and meta)', () => {
    const pending = requests.slice(0, 1);
    const denying = press(press(initialKeyState, 'n', { pending }), 'why', { pending });
    // Ink passes Esc as empty input with escape and meta set.
    expect(reduceKey(denying, { typed: '', key: { escape: true, meta: true }, pending, busy: false })).toMatchObject({ denying: false, reason: '' });
    // Other keys with meta are still ignored.
    expect(press(denying, 'x', { pending, key: { meta: true } })).toBe(denying);
  });

  it('sends pasted text whose Enter came in the same write', () => {
    const once = (state: KeyState, typed: string, options: { pending?: typeof requests; busy?: boolean } = {}) =>
      reduceKey(state, { typed, key: {}, pending: options.pending ?? [], busy: options.busy ?? false });
    expect(once(initialKeyState, 'hello there\r')).toMatchObject({ input: '', effect: { kind: 'send', text: 'hello there' }, effectId: 1 });
    expect(once(press(initialKeyState, 'say '), 'hi\n')).toMatchObject({ input: '', effect: { kind: 'send', text: 'say hi' } });
    // A pasted message of several lines goes whole; what follows the last line break stays typed.
    expect(once(initialKeyState, 'first line\r\nsecond line\rdraft')).toMatchObject({ input: 'draft', effect: { kind: 'send', text: 'first line\nsecond line' }, effectId: 1 });
    // While a reply streams it is kept, not lost.
    expect(once(initialKeyState, 'later\r', { busy: true })).toMatchObject({ input: 'later', effectId: 0 });
  });

  it('takes y, n and a reason each followed by Enter in one write', () => {
    const once = (state: KeyState, typed: string) => reduceKey(state, { typed, key: {}, pending: requests, busy: false });
    expect(once(initialKeyState, 'y\r')).toMatchObject({ answers: [{ approvalId: 'ap1', approved: true }], effectId: 0 });
    expect(once(once(initialKeyState, 'y\r'), 'n\rnot b\r')).toMatchObject({
      effect: {
        kind: 'answer',
        answers: [
          { approvalId: 'ap1', approved: true },
          { approvalId: 'ap2', approved: false, reason: 'not b' },
        ],
      },
      effectId: 1,
    });
    // Text after the Enter that sent the answers waits in the input.
    expect(once(initialKeyState, 'y\ry\rhello\r')).toMatchObject({ effect: { kind: 'answer' }, effectId: 1, input: 'hello\n' });
  });
});

describe('cancelling a turn from the keyboard', () => {
  const press = (state: KeyState, typed: string, key: KeyFlags, busy: boolean) => reduceKey(state, { typed, key, pending: [], busy });

  it('Ctrl-C while a reply streams cancels the turn and keeps what is typed; with nothing running it exits', () => {
    const typing = press(initialKeyState, 'draft', {}, true);
    const cancelled = press(typing, 'c', { ctrl: true }, true);
    expect(cancelled.effect).toEqual({ kind: 'cancel' });
    expect(cancelled.effectId).toBe(typing.effectId + 1);
    expect(cancelled.input).toBe('draft');
    expect(press(initialKeyState, 'c', { ctrl: true }, false).effect).toEqual({ kind: 'exit' });
  });

  it('Esc while a reply streams cancels the turn; Esc when idle does nothing', () => {
    expect(press(initialKeyState, '', { escape: true, meta: true }, true).effect).toEqual({ kind: 'cancel' });
    const idle = press(initialKeyState, '', { escape: true, meta: true }, false);
    expect(idle.effect).toBeUndefined();
  });
});
