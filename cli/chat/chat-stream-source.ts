import type { UIMessageChunk } from 'ai';
import { joinUrl } from '../../client/index.js';
import { resumableStream, type ResumableStreamOptions } from './resumable-stream.js';
import { requestUiMessageStream } from './ui-stream-reader.js';

/** One answer to an approval request, as the service expects it inside a tool message. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  /** Why it was denied; the model is told. */
  reason?: string;
}

/** The native tool message that answers approvals: sent as the `message` of the next chat request. */
export interface ToolApprovalMessage {
  role: 'tool';
  content: ({ type: 'tool-approval-response' } & ApprovalAnswer)[];
}

/** The native chat body: user text, or a tool message answering approvals. */
export interface ChatRequest {
  conversationKey: string;
  message: string | ToolApprovalMessage;
}

/**
 * Where a chat turn's UI message chunks come from. The HTTP source POSTs to the agent
 * service's chat route; a NATS source (request on `harness.v1.<account>.<agent>.chat`,
 * chunks on the reply subject) can implement the same interface.
 */
export interface ChatStreamSource {
  /** Starts a turn (or its continuation) and yields its chunks until the stream ends. */
  open(request: ChatRequest, signal?: AbortSignal): Promise<AsyncIterable<UIMessageChunk>>;
}

export function toolApprovalMessage(answers: readonly ApprovalAnswer[]): ToolApprovalMessage {
  return {
    role: 'tool',
    content: answers.map((answer) => ({
      type: 'tool-approval-response' as const,
      approvalId: answer.approvalId,
      approved: answer.approved,
      ...(answer.reason ? { reason: answer.reason } : {}),
    })),
  };
}

export interface HttpChatSourceOptions {
  agentUrl: string;
  agentId: string;
  secret: string;
  /** Named when the agent service cannot be reached (see `ApiClientOptions.serveCommand`). */
  serveCommand?: string;
}

/**
 * `POST {agentUrl}/agents/{agentId}/chat` with `Accept: text/event-stream`. When the connection
 * drops mid-turn, the stream goes on from
 * `GET {agentUrl}/agents/{agentId}/conversations/{conversationKey}/stream` with the last chunk's
 * id as `Last-Event-ID`.
 */
export function createHttpChatSource(options: HttpChatSourceOptions & { reconnect?: Pick<ResumableStreamOptions, 'maxAttempts' | 'firstDelayMilliseconds'> }): ChatStreamSource {
  const agentPath = `/agents/${encodeURIComponent(options.agentId)}`;
  const url = joinUrl(options.agentUrl, `${agentPath}/chat`);
  const common = { secret: options.secret, serveCommand: options.serveCommand };
  return {
    open: async (request, signal) => {
      let lastEventId: string | undefined;
      const onEventId = (eventId: string) => {
        lastEventId = eventId;
      };
      // The turn starts (or is refused) here; only a drop while reading its stream is resumed.
      const first = await requestUiMessageStream({ ...common, url, body: request, signal, onEventId });
      const streamUrl = joinUrl(options.agentUrl, `${agentPath}/conversations/${encodeURIComponent(request.conversationKey)}/stream`);
      return resumableStream({
        ...options.reconnect,
        ...(signal === undefined ? {} : { signal }),
        first,
        lastEventId: () => lastEventId,
        resume: (after) => requestUiMessageStream({ ...common, url: streamUrl, lastEventId: after, signal, onEventId }),
      });
    },
  };
}
