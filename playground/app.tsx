import { useCallback, useEffect, useState } from 'react';
import { type AgentSummary, clientFor, HarnessApiError } from './harness-client.js';
import { ChatView } from './chat-view.js';
import { CronJobsView } from './cron-jobs-view.js';
import { forgetSecret, newConversationKey, readLocation, savedSecret, saveSecret, writeLocation } from './session-store.js';
import { SignInForm } from './sign-in-form.js';

type View = 'chat' | 'cron-jobs';

/** Signed out: the sign-in form. Signed in: the chat (agent, conversation) or the cron jobs. */
export function App() {
  const [secret, setSecret] = useState<string | undefined>(savedSecret);
  const [agents, setAgents] = useState<AgentSummary[]>();
  const [view, setView] = useState<View>('chat');
  const [location, setLocation] = useState(readLocation);
  const [loadError, setLoadError] = useState<string>();

  const signOut = useCallback(() => {
    forgetSecret();
    setSecret(undefined);
    setAgents(undefined);
  }, []);

  // A secret kept from before a reload: list the agents again (and drop it if it stopped working).
  useEffect(() => {
    if (!secret || agents) return;
    clientFor(secret)
      .playground.agents()
      .then(setAgents)
      .catch((failure: unknown) => (failure instanceof HarnessApiError && failure.status === 401 ? signOut() : setLoadError((failure as Error).message)));
  }, [secret, agents, signOut]);

  // Pick an agent and a conversation when the hash has none, and keep the hash current.
  useEffect(() => {
    if (!agents || agents.length === 0) return;
    const agentId = location.agentId && agents.some((agent) => agent.agentId === location.agentId) ? location.agentId : agents[0]!.agentId;
    const next = { agentId, conversationKey: location.conversationKey ?? newConversationKey() };
    if (next.agentId !== location.agentId || next.conversationKey !== location.conversationKey) setLocation(next);
    writeLocation(next);
  }, [agents, location]);

  if (!secret) {
    return (
      <SignInForm
        onSignedIn={(value, list) => {
          saveSecret(value);
          setSecret(value);
          setAgents(list);
        }}
      />
    );
  }

  const agent = agents?.find((candidate) => candidate.agentId === location.agentId);
  return (
    <div className="app">
      <header className="top-bar">
        <h1>harness playground</h1>
        <nav aria-label="Views">
          <button type="button" aria-pressed={view === 'chat'} onClick={() => setView('chat')}>Chat</button>
          <button type="button" aria-pressed={view === 'cron-jobs'} onClick={() => setView('cron-jobs')}>Cron jobs</button>
          <button type="button" onClick={signOut}>Sign out</button>
        </nav>
      </header>
      {loadError ? <p role="alert" className="error">{loadError}</p> : null}
      {view === 'cron-jobs' ? (
        <CronJobsView secret={secret} />
      ) : agents === undefined ? (
        <p className="note">Loading agents…</p>
      ) : agents.length === 0 ? (
        <p className="note">This account has no agents yet: create one with `harness agents put` or the account service.</p>
      ) : (
        <>
          <div className="chat-bar">
            <label htmlFor="agent-picker">Agent</label>
            <select id="agent-picker" value={location.agentId ?? ''} onChange={(event) => setLocation({ agentId: event.target.value, conversationKey: newConversationKey() })}>
              {agents.map((candidate) => (
                <option key={candidate.agentId} value={candidate.agentId}>{candidate.agentId}</option>
              ))}
            </select>
            <button type="button" onClick={() => setLocation({ agentId: location.agentId, conversationKey: newConversationKey() })}>New conversation</button>
          </div>
          {agent && location.conversationKey ? (
            <ChatView key={`${agent.agentId}/${location.conversationKey}`} secret={secret} agent={agent} conversationKey={location.conversationKey} />
          ) : null}
        </>
      )}
    </div>
  );
}
