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

const repository = { name: 'widgets', full_name: 'octo-org/widgets', owner: { login: 'octo-org', type: 'Organization' } };
const human = { login: 'ada', id: 1, type: 'User' };
const issue = { number: 17, title: 'Build fails', body: 'On main since Tuesday.', user: human };
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

  it('parses a new issue comment; the delivery header is the delivery id', () => {
    expect(githubAdapter.parse(signed('issue_comment', commentPayload), config)).toEqual({
      kind: 'message',
      deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      conversationId: 'octo-org/widgets#17',
      text: '@bot can you look?',
      sender: 'ada',
      replyTarget: { owner: 'octo-org', repo: 'widgets', issueNumber: 17 },
    });
  });

  it('parses an opened issue as title and body', () => {
    const event = githubAdapter.parse(signed('issues', { action: 'opened', issue, repository, sender: human }), config);
    expect(event).toMatchObject({ kind: 'message', conversationId: 'octo-org/widgets#17', text: 'Build fails\n\nOn main since Tuesday.' });
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
