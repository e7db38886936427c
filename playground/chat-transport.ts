import { DefaultChatTransport } from 'ai';
import type { HarnessUIMessage } from './harness-client.js';

const agentPath = (agentId: string) => `/agents/${encodeURIComponent(agentId)}`;
const conversationPath = (agentId: string, conversationKey: string) => `${agentPath(agentId)}/conversations/${encodeURIComponent(conversationKey)}`;

/**
 * The AI SDK's own transport, pointed at the agent service. The service keeps the history, so
 * a request carries only the last message (the user's text, or the assistant message with the
 * approval answers) under the conversation key, which is the chat id; the service streams to
 * that body form and continues an answered assistant message under its own id. Resuming reads
 * `GET .../conversations/{key}/stream`; a 404 there (a service without that route) counts as
 * "nothing to resume", like its 204.
 */
export function createChatTransport(secret: string, agentId: string): DefaultChatTransport<HarnessUIMessage> {
  return new DefaultChatTransport<HarnessUIMessage>({
    api: `${agentPath(agentId)}/chat`,
    headers: () => ({ authorization: `Bearer ${secret}` }),
    prepareSendMessagesRequest: ({ id, messages }) => ({ body: { id, messages: messages.slice(-1) } }),
    prepareReconnectToStreamRequest: ({ id }) => ({ api: `${conversationPath(agentId, id)}/stream` }),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const isReconnect = (init?.method ?? 'GET') === 'GET';
      return isReconnect && response.status === 404 ? new Response(null, { status: 204 }) : response;
    },
  });
}
