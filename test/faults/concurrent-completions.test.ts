import { describe, expect, it } from 'vitest';
import { startChatStack } from '../support/chat-stack.js';
import { startRecordingWorker } from '../support/recording-worker.js';

describe('fault: 100 concurrent completions of sibling async rows, 20 times', () => {
  it('starts exactly one continuation each time', async () => {
    const stack = await startChatStack();
    const worker = await startRecordingWorker();
    try {
      const { secret } = await stack.createAccount('racer');
      await stack.putAgent(secret, 'fanout', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: secret, workerUrl: worker.dispatchUrl } },
      });
      const continuations: number[] = [];
      const modelCalls: number[] = [];
      for (let round = 0; round < 20; round += 1) {
        worker.dispatches.length = 0;
        const answer = (await (await stack.chat(secret, 'fanout', { conversationKey: `round-${round}`, message: 'call x100 test_external_async {}' })).json()) as { statusUrl: string };
        expect(worker.dispatches).toHaveLength(100);
        const callsBefore = stack.model.callCount();
        const results = await Promise.all(worker.dispatches.map((dispatch) => worker.complete(dispatch, { status: 'completed', response: { round } })));
        continuations.push(results.filter((result) => result.body.continuation === 'accepted').length);
        let status = '';
        for (let attempt = 0; attempt < 200 && status !== 'completed'; attempt += 1) {
          await stack.core.asyncWorker.idle();
          status = ((await (await fetch(answer.statusUrl, { headers: { authorization: `Bearer ${secret}` } })).json()) as { status: string }).status;
        }
        modelCalls.push(stack.model.callCount() - callsBefore);
      }
      console.log(`FAULT 100 concurrent sibling completions x20: continuations per round ${JSON.stringify(continuations)}, continuation model calls per round ${JSON.stringify(modelCalls)}`);
      expect(continuations).toEqual(Array(20).fill(1));
      expect(modelCalls).toEqual(Array(20).fill(1));
    } finally {
      await worker.close();
      await stack.close();
    }
  });
});
