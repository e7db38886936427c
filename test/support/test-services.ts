import type { FastifyInstance } from 'fastify';
import { createHarnessCore, type HarnessCore, type HarnessCoreOptions } from '../../server/core/composition/harness-core.js';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import type { Storage } from '../../server/core/storage/table-store.js';
import { openTestStorage } from './test-storage.js';
import { buildAccountService } from '../../server/http/account-service.js';
import { buildAgentService } from '../../server/http/agent-service.js';
import { temporaryFolder } from './temporary-folder.js';

export const testAdminSecret = 'test-admin-secret-0123456789abcdefghijklmnop';
export const testEncryptionSecret = 'test-encryption-secret-0123456789abcdefghij';

export interface TestServices {
  dataDir: string;
  core: HarnessCore;
  storage: Storage;
  accountApp: FastifyInstance;
  agentApp: FastifyInstance;
  /** Rebuild everything on the same data folder, as a restarted process would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Both services built on a temporary data folder with real storage (lowdb files, or PostgreSQL under the test switch), for `inject`. */
export async function startTestServices(options: Pick<HarnessCoreOptions, 'signup'> = {}): Promise<TestServices> {
  const folder = await temporaryFolder();
  const build = async () => {
    const storage = await openTestStorage(`${folder.path}/tables`);
    const core = createHarnessCore({
      storage,
      infrastructure: defineInfrastructure('test'),
      secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
      ...options,
    });
    return { storage, core, accountApp: buildAccountService({ core }), agentApp: buildAgentService({ core }) };
  };
  const services = { dataDir: folder.path, ...(await build()) } as TestServices;
  const shutdown = async () => {
    await Promise.all([services.accountApp.close(), services.agentApp.close()]);
    await services.core.stop();
    await services.storage.close();
  };
  services.restart = async () => {
    await shutdown();
    Object.assign(services, await build());
  };
  services.close = async () => {
    await shutdown();
    await folder.remove();
  };
  return services;
}

/** Create an account through the API; returns its id and secret. */
export async function createAccount(app: FastifyInstance, username: string): Promise<{ accountId: string; secret: string }> {
  const response = await app.inject({ method: 'POST', url: '/accounts', payload: { username, description: `${username}'s account` } });
  if (response.statusCode !== 201) throw new Error(`account creation failed: ${response.statusCode} ${response.body}`);
  return response.json<{ accountId: string; secret: string }>();
}

export function bearer(secret: string): { authorization: string } {
  return { authorization: `Bearer ${secret}` };
}
