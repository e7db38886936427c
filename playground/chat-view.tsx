import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { type AgentSummary, clientFor, HarnessApiError } from './harness-client.js';
import { createChatTransport } from './chat-transport.js';
import { MessageView } from './message-view.js';
import { isNewConversation } from './session-store.js';
import { pendingAsyncResults, storedToUiMessages } from './stored-messages.js';

interface ChatViewProps {
  secret: string;
  agent: AgentSummary;
  conversationKey: string;
}

const pollMilliseconds = 1000;

/**
 * One conversation. `useChat` owns the stream (sending, approvals, resuming); the stored
 * conversation gives the history at load, and is polled while async results are pending
 * outside a stream (a continuation runs in the background and is stored, not streamed here).
 */
export function ChatView({ secret, agent, conversationKey }: ChatViewProps) {
  const transport = useMemo(() => createChatTransport(secret, agent.agentId), [secret, agent.agentId]);
  const { messages, setMessages, sendMessage, status, error, addToolApprovalResponse, resumeStream, clearError } = useChat({
    id: conversationKey,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const [loaded, setLoaded] = useState(false);
  const [notice, setNotice] = useState('');
  const listEnd = useRef<HTMLLIElement>(null);
  const client = useMemo(() => clientFor(secret), [secret]);

  const loadStored = async (): Promise<boolean> => {
    try {
      const stored = await client.chat.conversation(agent.agentId, conversationKey);
      setMessages(storedToUiMessages(stored.messages));
      return true;
    } catch (failure) {
      if (failure instanceof HarnessApiError && failure.status === 404) return true;
      setNotice(`Could not load the conversation: ${(failure as Error).message}`);
      return false;
    }
  };

  // History first, then pick up a turn that is still running (a reload or a dropped connection).
  // A conversation this tab just made up has neither.
  useEffect(() => {
    if (isNewConversation(conversationKey)) {
      setLoaded(true);
      return;
    }
    let current = true;
    void loadStored().then(() => {
      if (!current) return;
      setLoaded(true);
      // A resumed turn was not stored when the history was read (its user message included):
      // read the stored conversation again once the resumed stream has ended.
      void resumeStream().then(() => (current ? loadStored() : undefined));
    });
    return () => {
      current = false;
    };
    // Once per conversation: the view is keyed by it.
  }, []);

  const busy = status === 'submitted' || status === 'streaming';
  const pending = pendingAsyncResults(messages).length > 0;

  // Async results still pending with no stream open: read the stored conversation until they land.
  useEffect(() => {
    if (!loaded || busy || !pending) return;
    const timer = setInterval(() => void loadStored(), pollMilliseconds);
    return () => clearInterval(timer);
  }, [loaded, busy, pending]);

  useEffect(() => {
    listEnd.current?.scrollIntoView({ block: 'end' });
  }, [messages]);

  const send = (event: FormEvent) => {
    event.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput('');
    setNotice('');
    clearError();
    void sendMessage({ text });
  };

  const cancel = async () => {
    try {
      await client.cancelConversation(agent.agentId, conversationKey);
      setNotice('Cancel requested.');
    } catch (failure) {
      setNotice(failure instanceof HarnessApiError && failure.status === 409 ? 'Nothing is running.' : `Cancel failed: ${(failure as Error).message}`);
    }
  };

  // The resumed stream replays the running turn onto what the page has; once it has ended, the
  // stored conversation is the whole truth (also when the turn ended while the page was away).
  const reconnect = () => {
    clearError();
    setNotice('');
    void resumeStream().then(() => loadStored());
  };

  // Back online after the stream broke off: pick the turn up again without waiting for a click.
  // One listener for the view's life, reading the status of the last render: a listener added
  // only once the status is `error` would be added after the page shows it, and an `online`
  // event in between would be missed.
  const lastStatus = useRef(status);
  lastStatus.current = status;
  const reconnectRef = useRef(reconnect);
  reconnectRef.current = reconnect;
  useEffect(() => {
    const whenOnline = () => {
      if (lastStatus.current === 'error') reconnectRef.current();
    };
    window.addEventListener('online', whenOnline);
    return () => window.removeEventListener('online', whenOnline);
  }, []);

  const state = !loaded ? 'loading' : busy ? 'busy' : status === 'error' ? 'error' : pending ? 'pending' : 'ready';
  const statusText = { loading: 'Loading the conversation…', busy: 'The agent is answering…', error: 'Disconnected or failed: Reconnect picks up a running turn.', pending: 'Waiting for async tools…', ready: 'Ready.' }[state];

  return (
    <main className="chat">
      <p className="conversation-key">
        Conversation <code>{conversationKey}</code>
      </p>
      <ol className="messages" aria-label="Conversation" aria-live="polite" aria-busy={busy}>
        {messages.map((message) => (
          <MessageView key={message.id} message={message} onAnswer={(id, approved, reason) => void addToolApprovalResponse({ id, approved, ...(reason ? { reason } : {}) })} />
        ))}
        <li ref={listEnd} className="list-end" aria-hidden="true" />
      </ol>
      <div className="status-line">
        <p role="status" data-chat-status={state}>{statusText}</p>
        <p role="alert" className="error">{error ? `Error: ${error.message}` : notice}</p>
      </div>
      <form className="composer" onSubmit={send}>
        <label htmlFor="chat-input">Message</label>
        <textarea
          id="chat-input"
          rows={2}
          placeholder="Type a message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) send(event);
          }}
        />
        <div className="buttons">
          <button type="submit" disabled={!loaded || busy || input.trim() === ''}>Send</button>
          <button type="button" onClick={() => void cancel()} disabled={!busy && !pending}>Cancel</button>
          <button type="button" onClick={reconnect} disabled={busy || !loaded}>Reconnect</button>
        </div>
      </form>
    </main>
  );
}
