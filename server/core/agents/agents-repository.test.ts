import { describe, expect, it } from 'vitest';
import { ConfigCipher } from '../secrets/config-encryption.js';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import type { Agent, StoredAgent } from './agent.js';
import { AgentsRepository } from './agents-repository.js';
import { DecryptedConfigs } from './decrypted-configs.js';

/** A cipher that counts its decryptions. */
class CountingCipher extends ConfigCipher {
  decryptions = 0;

  override decrypt<T>(...args: Parameters<ConfigCipher['decrypt']>): T {
    this.decryptions += 1;
    return super.decrypt<T>(...args);
  }
}

function agent(system: string): Agent {
  return { accountId: 'acct_1', agentId: 'helper', config: { system, provider: { openai: { apiKey: 'sk-test-secret-key' } } } as Agent['config'], createdAt: 'then', updatedAt: 'then' };
}

describe('AgentsRepository', () => {
  const storage = lowdbStoragePerTest();

  it('decrypts a stored config once while its ciphertext is unchanged, and hands each caller its own copy', async () => {
    const cipher = new CountingCipher('config secret');
    const repository = new AgentsRepository(storage.open().table<StoredAgent>('agents'), cipher);
    await repository.write(agent('first'), null);
    const first = await repository.get('acct_1', 'helper');
    const second = await repository.get('acct_1', 'helper');
    expect(cipher.decryptions).toBe(1);
    expect(second?.agent.config.system).toBe('first');
    // A caller that changes its copy changes nobody else's.
    first!.agent.config.system = 'changed by a caller';
    expect((await repository.get('acct_1', 'helper'))?.agent.config.system).toBe('first');
  });

  it("sees another replica's write at the next read (a new ciphertext), and forgets a deleted agent", async () => {
    const table = storage.open().table<StoredAgent>('agents');
    const cipher = new CountingCipher('config secret');
    const here = new AgentsRepository(table, cipher);
    const elsewhere = new AgentsRepository(table, new ConfigCipher('config secret'));
    await here.write(agent('first'), null);
    const read = await here.get('acct_1', 'helper');
    await elsewhere.write(agent('second'), read!.version);
    expect((await here.get('acct_1', 'helper'))?.agent.config.system).toBe('second');
    expect(cipher.decryptions).toBe(2);
    const latest = await here.get('acct_1', 'helper');
    await here.delete('acct_1', 'helper', latest!.version);
    expect(await here.get('acct_1', 'helper')).toBeUndefined();
  });

  it('keeps at most the configured number of configs, dropping the least recently used', async () => {
    const cipher = new CountingCipher('config secret');
    const decrypted = new DecryptedConfigs(2);
    const repository = new AgentsRepository(storage.open().table<StoredAgent>('agents'), cipher, decrypted);
    for (const agentId of ['a', 'b', 'c']) await repository.write({ ...agent(agentId), agentId }, null);
    await repository.get('acct_1', 'a');
    await repository.get('acct_1', 'b');
    await repository.get('acct_1', 'a');
    await repository.get('acct_1', 'c');
    expect(decrypted.size).toBe(2);
    cipher.decryptions = 0;
    await repository.get('acct_1', 'a');
    expect(cipher.decryptions).toBe(0);
    await repository.get('acct_1', 'b');
    expect(cipher.decryptions).toBe(1);
  });
});
