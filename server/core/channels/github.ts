import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { constantTimeEqual } from './constant-time-equal.js';
import { splitReplyText } from './split-reply-text.js';
import { deliveryMemoryMs, parseJsonBody, resolveApiBaseUrl } from './webhook-helpers.js';

/** `config.channels.github`. */
export const githubConfigSchema = z.object({
  /** The webhook's secret; GitHub signs each delivery with it. */
  webhookSecret: z.string().min(1),
  /** A token that may comment on the repository's issues (PAT or installation token). */
  token: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type GithubConfig = z.infer<typeof githubConfigSchema>;

export const githubReplyTargetSchema = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  issueNumber: z.number().int().positive(),
});
export type GithubReplyTarget = z.infer<typeof githubReplyTargetSchema>;

/**
 * Appended to every comment the harness posts. A token that belongs to a user (not an
 * app) makes our own comments arrive as `sender.type: "User"`; the marker is how we
 * recognise them and avoid answering ourselves. HTML comments do not render.
 */
export const githubReplyMarker = '\n\n<!-- harness-reply -->';

const signatureHeader = 'x-hub-signature-256';
/** GitHub rejects comment bodies longer than 65536 characters; the marker counts too. */
const replyLimit = 65536;

const userSchema = z.object({ login: z.string(), type: z.string() });
const issueSchema = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  user: userSchema,
  created_at: z.string().optional(),
});
const repositorySchema = z.object({ id: z.number(), name: z.string(), owner: z.object({ login: z.string() }) });

const issueCommentSchema = z.object({
  action: z.string(),
  issue: issueSchema,
  comment: z.object({ id: z.number(), body: z.string().nullable(), user: userSchema, created_at: z.string().optional() }),
  repository: repositorySchema,
  sender: userSchema,
});
const issuesSchema = z.object({ action: z.string(), issue: issueSchema, repository: repositorySchema, sender: userSchema });

/** GitHub webhooks: https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries. */
export const githubAdapter: ChannelAdapter<GithubConfig, GithubReplyTarget> = {
  provider: 'github',
  configSchema: githubConfigSchema,
  replyTargetSchema: githubReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    const received = request.headers[signatureHeader];
    if (received === undefined) return { ok: false, reason: `missing ${signatureHeader} header` };
    const expected = `sha256=${createHmac('sha256', config.webhookSecret).update(request.rawBody).digest('hex')}`;
    if (!constantTimeEqual(received, expected)) return { ok: false, reason: `${signatureHeader} does not match the body` };
    return { ok: true };
  },

  /**
   * The delivery id is built from the signed body, not from `X-GitHub-Delivery`: that header
   * is outside the signature, so a captured delivery resent with new ids would otherwise run
   * again each time. A comment or an issue is created once, so repository id + comment id
   * (or issue id) + action names one delivery, retries and redeliveries included.
   */
  parse(request): InboundEvent {
    const event = request.headers['x-github-event'];
    const payload = parseJsonBody(request.rawBody);
    if (event === 'issue_comment') {
      const parsed = issueCommentSchema.safeParse(payload);
      if (!parsed.success) return { kind: 'ignored', reason: 'malformed issue_comment payload' };
      const { action, issue, comment, repository, sender } = parsed.data;
      if (action !== 'created') return { kind: 'ignored', reason: `issue_comment action ${action}` };
      if (sender.type === 'Bot' || comment.user.type === 'Bot') return { kind: 'ignored', reason: 'comment by a bot' };
      const body = comment.body ?? '';
      if (body.includes(githubReplyMarker.trim())) return { kind: 'ignored', reason: 'comment posted by the harness' };
      if (isTooOld(comment.created_at, request.now)) return { kind: 'ignored', reason: 'comment older than the deliveries the service remembers' };
      return message(`${repository.id}:comment:${comment.id}:${action}`, repository, issue.number, body, comment.user.login);
    }
    if (event === 'issues') {
      const parsed = issuesSchema.safeParse(payload);
      if (!parsed.success) return { kind: 'ignored', reason: 'malformed issues payload' };
      const { action, issue, repository, sender } = parsed.data;
      if (action !== 'opened') return { kind: 'ignored', reason: `issues action ${action}` };
      if (sender.type === 'Bot') return { kind: 'ignored', reason: 'issue opened by a bot' };
      if (isTooOld(issue.created_at, request.now)) return { kind: 'ignored', reason: 'issue older than the deliveries the service remembers' };
      const text = issue.body ? `${issue.title}\n\n${issue.body}` : issue.title;
      return message(`${repository.id}:issue:${issue.id}:${action}`, repository, issue.number, text, issue.user.login);
    }
    return { kind: 'ignored', reason: `event ${event ?? '(none)'} is not a message` };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://api.github.com');
    const url = `${base}/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/issues/${target.issueNumber}/comments`;
    return splitReplyText(text, replyLimit - githubReplyMarker.length).map((piece) => ({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${config.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        // The REST API refuses requests without a User-Agent.
        'user-agent': 'harness',
        'content-type': 'application/json',
      },
      body: { body: `${piece}${githubReplyMarker}` },
    }));
  },
};

/** A signed creation time past the deliveries table's memory: its replay could not be recognised. */
function isTooOld(createdAt: string | undefined, now: Date): boolean {
  const created = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
  return Number.isFinite(created) && now.getTime() - created > deliveryMemoryMs;
}

function message(
  deliveryId: string,
  repository: z.infer<typeof repositorySchema>,
  issueNumber: number,
  text: string,
  sender: string,
): InboundEvent {
  const owner = repository.owner.login;
  return {
    kind: 'message',
    deliveryId,
    conversationId: `${owner}/${repository.name}#${issueNumber}`,
    text,
    sender,
    replyTarget: { owner, repo: repository.name, issueNumber },
  };
}
