import { afterEach } from 'vitest';
import { profilesPath, saveProfile } from '../profiles.js';
import { startStubService, type RecordedRequest, type RecordingServer, type StubReply } from './stub-service.js';
import { createTestContext, type TestContext } from './test-context.js';

export type StubService = RecordingServer;

/**
 * For the tests of the enclosing file or `describe`: a function that starts a stub service
 * answering from `handler` and a CLI context whose `default` profile is signed in to it
 * (account `acc_1`, user `alice`, the given secret). Every stub started is closed after
 * its test.
 */
export function signedInStubPerTest(secret: string): (handler: (request: RecordedRequest) => StubReply, contextOptions?: Parameters<typeof createTestContext>[0]) => Promise<{ context: TestContext; service: StubService }> {
  const started: StubService[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((stub) => stub.close()));
  });
  return async (handler, contextOptions) => {
    const service = await startStubService(handler);
    started.push(service);
    const context = await createTestContext(contextOptions);
    await saveProfile(profilesPath(context.env, context.homeDir), 'default', { accountUrl: service.url, agentUrl: service.url, accountId: 'acc_1', username: 'alice', secret });
    return { context, service };
  };
}
