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
});
