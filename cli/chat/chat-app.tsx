import { useApp, useInput } from 'ink';
import { useEffect, useReducer } from 'react';
import type { ChatSession } from './chat-session.js';
import { pendingApprovals } from './chat-transcript.js';
import { currentApproval, initialKeyState, reduceKey, type KeyPress } from './chat-keys.js';
import { ChatView } from './chat-view.js';
import { useChatSession } from './use-chat-session.js';

export interface ChatAppProps {
  session: ChatSession;
  agentId: string;
  /** How many transcript entries are prior history. */
  historyLength: number;
}

/**
 * The interactive chat: keypresses (through `reduceKey`) and the session's snapshots in,
 * `ChatView` out. A failed request shows in the transcript, so its promise is ignored.
 */
export function ChatApp({ session, agentId, historyLength }: ChatAppProps) {
  const { exit } = useApp();
  const { transcript, busy } = useChatSession(session);
  const [keys, dispatch] = useReducer((state: typeof initialKeyState, press: KeyPress) => reduceKey(state, press), initialKeyState);
  const pending = busy ? [] : pendingApprovals(transcript);

  useInput((typed, key) => dispatch({ typed, key, pending, busy }));

  useEffect(() => {
    const effect = keys.effect;
    if (!effect) return;
    if (effect.kind === 'exit') exit();
    else if (effect.kind === 'cancel') session.cancel().catch(() => {});
    else if (effect.kind === 'send') session.sendText(effect.text).catch(() => {});
    else session.answerApprovals(effect.answers).catch(() => {});
    // Each effect runs once, when its number comes up.
  }, [keys.effectId]);

  const request = currentApproval(keys, pending);
  return (
    <ChatView
      agentId={agentId}
      conversationKey={session.conversationKey}
      transcript={transcript}
      historyLength={historyLength}
      busy={busy}
      input={keys.input}
      prompt={request ? { request, position: keys.answers.length + 1, total: pending.length, mode: keys.denying ? 'reason' : 'decide', reason: keys.reason } : undefined}
    />
  );
}
