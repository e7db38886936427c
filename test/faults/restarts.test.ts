import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { requestJson } from '../support/json-request.js';
import { startRecordingWorker } from '../support/recording-worker.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { temporaryFolder } from '../support/temporary-folder.js';

const modelKey = 'sk-fault-model-key-0123456789';
const searchKey = 'tvly-fault-search-key-0123456789';

describe('fault: restarts with work in flight (kill -9, then a new process on the same data)', () => {
  let model: FixtureModelServer;
  let search: FixtureSearchServer;
  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    search = await startFixtureSearch({ apiKey: searchKey });
  });
  afterAll(async () => {
    await model.close();
    await search.close();
  });

  const reorigin = (url: string, service: ServiceProcess) => url.replace(/^http:\/\/[^/]+/, service.agentUrl);

  it('restart between dispatch and completion: every continuation still happens', async () => {
    const folder = await temporaryFolder();
    const worker = await startRecordingWorker();
    let service = await startServiceProcess(folder.path);
    try {
      const { secret } = (await requestJson<{ secret: string }>(`${service.accountUrl}/accounts`, { body: { username: 'restarter', description: 'x' } })).body;
      await requestJson(`${service.accountUrl}/accounts/me/agents/dispatcher`, {
        method: 'PUT',
        secret,
        body: {
          config: {
            provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } },
            tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: service.agentUrl, completionBearerToken: secret, workerUrl: worker.dispatchUrl } },
          },
        },
      });
      const statusUrls: string[] = [];
      for (let index = 0; index < 10; index += 1) {
        const answer = await requestJson(`${service.agentUrl}/agents/dispatcher/chat`, { secret, body: { conversationKey: `turn-${index}`, message: 'call x3 test_external_async {}' } });
        statusUrls.push(String(answer.body.statusUrl));
      }
      expect(worker.dispatches).toHaveLength(30);
      await service.killHard();
      service = await startServiceProcess(folder.path);
      await Promise.all(worker.dispatches.map((dispatch) => requestJson(reorigin(dispatch.completeUrl, service), { secret, body: { status: 'completed', response: { survived: dispatch.resultId } } })));
      let completed = 0;
      for (const statusUrl of statusUrls) {
        for (let attempt = 0; attempt < 200; attempt += 1) {
          const status = (await requestJson(reorigin(statusUrl, service), { secret })).body.status;
          if (status === 'completed') {
            completed += 1;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
      console.log(`FAULT restart between dispatch and completion: ${completed} of ${statusUrls.length} parents continued`);
      expect(completed).toBe(statusUrls.length);
    } finally {
      await service.stop();
      await worker.close();
      await folder.remove();
    }
  });

  it('restart with pending approvals: every approval is answerable afterwards, and no denied tool runs', async () => {
    const folder = await temporaryFolder();
    let service = await startServiceProcess(folder.path, { ALPHA_BASE_URL: search.baseURL });
    try {
      const { secret } = (await requestJson<{ secret: string }>(`${service.accountUrl}/accounts`, { body: { username: 'approver', description: 'x' } })).body;
      await requestJson(`${service.accountUrl}/accounts/me/agents/careful`, {
        method: 'PUT',
        secret,
        body: { config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } }, tools: { alphaSearch: { apiKey: searchKey, needsApproval: true } } } },
      });
      const pending: { key: string; approvalId: string; approve: boolean; query: string }[] = [];
      for (let index = 0; index < 10; index += 1) {
        const query = `query-${index}-${index % 2 === 0 ? 'approve' : 'deny'}`;
        const answer = await requestJson(`${service.agentUrl}/agents/careful/chat`, { secret, body: { conversationKey: `c-${index}`, message: `search: ${query}` } });
        const approvals = answer.body.pendingApprovals as { approvalId: string }[];
        pending.push({ key: `c-${index}`, approvalId: approvals[0]!.approvalId, approve: index % 2 === 0, query });
      }
      await service.killHard();
      service = await startServiceProcess(folder.path, { ALPHA_BASE_URL: search.baseURL });
      let answerable = 0;
      for (const approval of pending) {
        const answer = await requestJson(`${service.agentUrl}/agents/careful/chat`, {
          secret,
          body: {
            conversationKey: approval.key,
            message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approval.approvalId, approved: approval.approve, reason: 'fault test' }] },
          },
        });
        if (answer.status === 200 && answer.body.status === 'completed') answerable += 1;
      }
      const searched = search.requests().map((request) => String((request.body as { query?: string }).query));
      const deniedRan = pending.filter((approval) => !approval.approve && searched.includes(approval.query)).length;
      const approvedRan = pending.filter((approval) => approval.approve && searched.filter((query) => query === approval.query).length === 1).length;
      console.log(`FAULT restart with pending approvals: ${answerable} of ${pending.length} answerable afterwards, ${deniedRan} denied tools ran, ${approvedRan} of ${pending.length / 2} approved tools ran exactly once`);
      expect(answerable).toBe(pending.length);
      expect(deniedRan).toBe(0);
      expect(approvedRan).toBe(pending.length / 2);
    } finally {
      await service.stop();
      await folder.remove();
    }
  });
});
