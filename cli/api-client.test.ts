import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, joinUrl } from './api-client.js';
import { ApiError } from './cli-error.js';
import { startStubService, type StubReply } from './test-support/stub-service.js';

let stub: Awaited<ReturnType<typeof startStubService>> | undefined;

async function stubReplying(reply: StubReply) {
  stub = await startStubService(() => reply);
  return stub;
}

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('joinUrl', () => {
  it('keeps a base path prefix and tolerates slashes', () => {
    expect(joinUrl('http://h:1', '/accounts')).toBe('http://h:1/accounts');
    expect(joinUrl('http://h:1/', 'accounts')).toBe('http://h:1/accounts');
    expect(joinUrl('https://h/prod', '/accounts/me')).toBe('https://h/prod/accounts/me');
  });
});

describe('createApiClient', () => {
  it('sends JSON with the bearer secret and parses the JSON reply', async () => {
    const service = await stubReplying({ status: 201, body: { ok: true } });
    const client = createApiClient({ baseUrl: service.url, serviceName: 'account', secret: 's3cret' });
    expect(await client.send('POST', '/accounts', { body: { username: 'a' } })).toEqual({ ok: true });
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/accounts', body: '{"username":"a"}' });
    expect(service.requests[0]?.headers).toMatchObject({ authorization: 'Bearer s3cret', 'content-type': 'application/json' });
  });

  it('sends no authorization header without a secret, and a chosen content type', async () => {
    const service = await stubReplying({ status: 200, body: {} });
    await createApiClient({ baseUrl: service.url, serviceName: 'account' }).send('PATCH', '/x', {
      body: {},
      contentType: 'application/merge-patch+json',
    });
    expect(service.requests[0]?.headers.authorization).toBeUndefined();
    expect(service.requests[0]?.headers['content-type']).toBe('application/merge-patch+json');
  });

  it('resolves undefined for 204', async () => {
    const service = await stubReplying({ status: 204 });
    expect(await createApiClient({ baseUrl: service.url, serviceName: 'account' }).send('DELETE', '/x')).toBeUndefined();
  });

  it('turns an error body into an ApiError with message, code and status', async () => {
    const service = await stubReplying({ status: 409, body: { error: { code: 'conflict', message: 'Username "a" is taken.' } } });
    const error = await createApiClient({ baseUrl: service.url, serviceName: 'account' })
      .send('POST', '/accounts')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('Username "a" is taken. (conflict, HTTP 409)');
    expect((error as ApiError).status).toBe(409);
  });

  it('describes an error without the JSON shape by method, path and body excerpt', async () => {
    const service = await stubReplying({ status: 502, body: 'Bad Gateway' });
    await expect(createApiClient({ baseUrl: service.url, serviceName: 'account' }).send('GET', '/accounts/me')).rejects.toThrow(
      'GET /accounts/me failed: Bad Gateway (error, HTTP 502)',
    );
  });

  it('refuses a success reply that is not JSON', async () => {
    const service = await stubReplying({ status: 200, body: '<html>' });
    await expect(createApiClient({ baseUrl: service.url, serviceName: 'account' }).send('GET', '/')).rejects.toThrow(/not JSON/);
  });

  it('says to run `harness serve` when the connection is refused', async () => {
    const service = await stubReplying({ status: 200, body: {} });
    await service.close();
    stub = undefined;
    await expect(createApiClient({ baseUrl: service.url, serviceName: 'account' }).send('GET', '/')).rejects.toThrow(
      `cannot reach the account service at ${service.url}: is \`harness serve\` running?`,
    );
  });
});
