import { useSyncExternalStore } from 'react';
import type { ChatSession, ChatSnapshot } from './chat-session.js';

/** The session's current snapshot; re-renders on every chunk. */
export function useChatSession(session: ChatSession): ChatSnapshot {
  return useSyncExternalStore(session.subscribe, session.getSnapshot);
}
