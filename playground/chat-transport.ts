import { type ChatTransport, DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { agentPath, conversationPath } from './api-client.js';

type SendOptions = Parameters<ChatTransport<UIMessage>['sendMessages']>[0];

/**
 * The AI SDK's own transport, pointed at the agent service. The service keeps the history, so
 * a request carries only the last message (the user's text, or the assistant message with the
 * approval answers) under the conversation key, which is the chat id. Resuming reads
 * `GET .../conversations/{key}/stream`; a 404 there (a service without that route) counts as
 * "nothing to resume", like its 204.
 */
class PlaygroundTransport extends DefaultChatTransport<UIMessage> {
  /**
   * After approvals the service streams the rest of the turn under a new message id, and
   * `useChat` would show it as a second assistant message holding the same tool call again.
   * The continuation belongs to the message that asked, so its `start` chunk takes that id.
   */
  override async sendMessages(options: SendOptions): Promise<ReadableStream<UIMessageChunk>> {
    const stream = await super.sendMessages(options);
    const last = options.messages.at(-1);
    if (last?.role !== 'assistant') return stream;
    return stream.pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform: (chunk, controller) => controller.enqueue(chunk.type === 'start' ? { ...chunk, messageId: last.id } : chunk),
      }),
    );
  }
}

export function createChatTransport(secret: string, agentId: string): DefaultChatTransport<UIMessage> {
  return new PlaygroundTransport({
    api: `${agentPath(agentId)}/chat`,
    // The transport sends no Accept header of its own, and the chat route streams only when
    // asked (`Accept: text/event-stream`); otherwise it answers the turn's end state as JSON.
    headers: () => ({ authorization: `Bearer ${secret}`, accept: 'text/event-stream' }),
    prepareSendMessagesRequest: ({ id, messages }) => ({ body: { id, messages: messages.slice(-1) } }),
    prepareReconnectToStreamRequest: ({ id }) => ({ api: `${conversationPath(agentId, id)}/stream` }),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const isReconnect = (init?.method ?? 'GET') === 'GET';
      return isReconnect && response.status === 404 ? new Response(null, { status: 204 }) : response;
    },
  });
}
