import { useApp, useInput } from 'ink';
import { useState } from 'react';
import type { ApprovalAnswer } from './chat-stream-source.js';
import type { ChatSession } from './chat-session.js';
import { pendingApprovals } from './chat-transcript.js';
import { ChatView, type ApprovalPromptState } from './chat-view.js';
import { useChatSession } from './use-chat-session.js';

export interface ChatAppProps {
  session: ChatSession;
  agentId: string;
  /** How many transcript entries are prior history. */
  historyLength: number;
}

const exitCommands = new Set(['/exit', '/quit']);

/**
 * The interactive chat: keyboard input and the session's snapshots in, `ChatView` out.
 * Approval answers are collected until every request of the turn has one, then sent as
 * one tool message. A failed request shows in the transcript, so its promise is ignored.
 */
export function ChatApp({ session, agentId, historyLength }: ChatAppProps) {
  const { exit } = useApp();
  const { transcript, busy } = useChatSession(session);
  const [input, setInput] = useState('');
  const [answers, setAnswers] = useState<ApprovalAnswer[]>([]);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');

  const pending = busy ? [] : pendingApprovals(transcript);
  const current = pending.find((request) => !answers.some((answer) => answer.approvalId === request.approvalId));
  const prompt: ApprovalPromptState | undefined = current
    ? { request: current, position: answers.length + 1, total: pending.length, mode: denying ? 'reason' : 'decide', reason }
    : undefined;

  const answer = (given: ApprovalAnswer): void => {
    const all = [...answers, given];
    setDenying(false);
    setReason('');
    if (all.length < pending.length) {
      setAnswers(all);
      return;
    }
    setAnswers([]);
    session.answerApprovals(all).catch(() => {});
  };

  /** Applies typing to a line of text: characters append, backspace removes. */
  const edit = (line: string, typed: string, key: { backspace: boolean; delete: boolean }): string =>
    key.backspace || key.delete ? line.slice(0, -1) : line + typed.replace(/[\r\n]/g, '');

  useInput((typed, key) => {
    if (key.ctrl || key.meta) return;
    if (prompt && !denying) {
      if (typed.toLowerCase() === 'y') answer({ approvalId: prompt.request.approvalId, approved: true });
      else if (typed.toLowerCase() === 'n') setDenying(true);
      return;
    }
    if (prompt) {
      if (key.return) answer({ approvalId: prompt.request.approvalId, approved: false, ...(reason.trim() ? { reason: reason.trim() } : {}) });
      else if (key.escape) setDenying(false);
      else setReason(edit(reason, typed, key));
      return;
    }
    if (!key.return) {
      setInput(edit(input, typed, key));
      return;
    }
    const text = input.trim();
    if (exitCommands.has(text)) {
      exit();
      return;
    }
    if (text === '' || busy) return;
    setInput('');
    session.sendText(text).catch(() => {});
  });

  return (
    <ChatView
      agentId={agentId}
      conversationKey={session.conversationKey}
      transcript={transcript}
      historyLength={historyLength}
      busy={busy}
      input={input}
      prompt={prompt}
    />
  );
}
