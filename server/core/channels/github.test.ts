import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { githubAdapter, githubReplyMarker, type GithubConfig } from './github.js';

const config: GithubConfig = { webhookSecret: 'github-webhook-secret', token: 'ghp_exampletoken1234' };

function signed(event: string, body: unknown, secret = config.webhookSecret): InboundWebhook {
  const rawBody = Buffer.from(JSON.stringify(body));
  return {
    headers: {
      'x-github-event': event,
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`,
    },
    rawBody,
    query: {},
    now: new Date(),
  };
}

const repository = { id: 1296269, name: 'widgets', full_name: 'octo-org/widgets', owner: { login: 'octo-org', type: 'Organization' } };
const human = { login: 'ada', id: 1, type: 'User' };
const issue = { id: 1347, number: 17, title: 'Build fails', body: 'On main since Tuesday.', user: human };
const commentPayload = { action: 'created', issue, comment: { id: 5, body: '@bot can you look?', user: human }, repository, sender: human };

describe('github adapter', () => {
  it("verifies GitHub's published example delivery", () => {
    const request: InboundWebhook = {
      headers: { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' },
      rawBody: Buffer.from('Hello, World!'),
      query: {},
      now: new Date(),
    };
    expect(githubAdapter.verify(request, { ...config, webhookSecret: "It's a Secret to Everybody" })).toEqual({ ok: true });
  });

  it('rejects a wrong secret, a changed body and a missing signature', () => {
    expect(githubAdapter.verify(signed('issue_comment', commentPayload, 'other-secret'), config).ok).toBe(false);
    const tampered = { ...signed('issue_comment', commentPayload), rawBody: Buffer.from('{"action":"created"}') };
    expect(githubAdapter.verify(tampered, config).ok).toBe(false);
    const unsigned = signed('issue_comment', commentPayload);
    delete unsigned.headers['x-hub-signature-256'];
    expect(githubAdapter.verify(unsigned, config)).toEqual({ ok: false, reason: expect.stringContaining('missing') });
  });

  it('parses a new issue comment; the delivery id comes from the signed body (repository and comment ids), not the header', () => {
    expect(githubAdapter.parse(signed('issue_comment', commentPayload), config)).toEqual({
      kind: 'message',
      deliveryId: '1296269:comment:5:created',
      conversationId: 'octo-org/widgets#17',
      text: '@bot can you look?',
      sender: 'ada',
      replyTarget: { owner: 'octo-org', repo: 'widgets', issueNumber: 17 },
    });
  });

  it('parses an opened issue as title and body', () => {
    const event = githubAdapter.parse(signed('issues', { action: 'opened', issue, repository, sender: human }), config);
    expect(event).toMatchObject({ kind: 'message', deliveryId: '1296269:issue:1347:opened', conversationId: 'octo-org/widgets#17', text: 'Build fails\n\nOn main since Tuesday.' });
  });

  it('gives the same delivery id to the same signed body under any X-GitHub-Delivery, and none to a body without ids', () => {
    const first = signed('issue_comment', commentPayload);
    const resent = { ...first, headers: { ...first.headers, 'x-github-delivery': 'another-guid' } };
    const withoutHeader = { ...first, headers: { ...first.headers, 'x-github-delivery': undefined } };
    const ids = [first, resent, withoutHeader].map((request) => githubAdapter.parse(request, config)).map((event) => (event.kind === 'message' ? event.deliveryId : event.kind));
    expect(ids).toEqual(['1296269:comment:5:created', '1296269:comment:5:created', '1296269:comment:5:created']);
    const { id: _commentId, ...commentWithoutId } = commentPayload.comment;
    expect(githubAdapter.parse(signed('issue_comment', { ...commentPayload, comment: commentWithoutId }), config).kind).toBe('ignored');
  });

  it('ignores a comment or an issue created longer ago than the deliveries table remembers (a replay it could not recognise)', () => {
    const now = Date.parse('2030-01-20T00:00:00Z');
    const at = (payload: unknown, event: string) => githubAdapter.parse({ ...signed(event, payload), now: new Date(now) }, config);
    const old = '2030-01-12T23:59:59Z';
    const recent = '2030-01-13T00:00:01Z';
    expect(at({ ...commentPayload, comment: { ...commentPayload.comment, created_at: old } }, 'issue_comment')).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('older') });
    expect(at({ ...commentPayload, comment: { ...commentPayload.comment, created_at: recent } }, 'issue_comment').kind).toBe('message');
    expect(at({ action: 'opened', issue: { ...issue, created_at: old }, repository, sender: human }, 'issues')).toMatchObject({ kind: 'ignored' });
  });

  it("ignores bots, the harness's own comments, other actions and other events", () => {
    const bot = { login: 'ci[bot]', id: 2, type: 'Bot' };
    expect(githubAdapter.parse(signed('issue_comment', { ...commentPayload, sender: bot, comment: { ...commentPayload.comment, user: bot } }), config).kind).toBe('ignored');
    const ownReply = { ...commentPayload, comment: { ...commentPayload.comment, body: `Here you go.${githubReplyMarker}` } };
    expect(githubAdapter.parse(signed('issue_comment', ownReply), config)).toMatchObject({ kind: 'ignored', reason: expect.stringContaining('harness') });
    expect(githubAdapter.parse(signed('issue_comment', { ...commentPayload, action: 'edited' }), config).kind).toBe('ignored');
    expect(githubAdapter.parse(signed('issues', { action: 'closed', issue, repository, sender: human }), config).kind).toBe('ignored');
    expect(githubAdapter.parse(signed('ping', { zen: 'Keep it logically awesome.', hook_id: 1 }), config).kind).toBe('ignored');
  });

  it('comments with a bearer token, splitting at 65536 characters including the marker', () => {
    const text = `${'word '.repeat(20000)}\n${'x'.repeat(40000)}`;
    const requests = githubAdapter.buildReplyRequests(config, { owner: 'octo-org', repo: 'widgets', issueNumber: 17 }, text);
    expect(requests.length).toBe(3);
    for (const request of requests) {
      expect(request.url).toBe('https://api.github.com/repos/octo-org/widgets/issues/17/comments');
      expect(request.headers.authorization).toBe('Bearer ghp_exampletoken1234');
      const body = request.body.body as string;
      expect(body.length).toBeLessThanOrEqual(65536);
      expect(body.endsWith(githubReplyMarker)).toBe(true);
    }
    const rejoined = requests.map((request) => (request.body.body as string).slice(0, -githubReplyMarker.length)).join('');
    expect(rejoined).toBe(text);
  });
});
