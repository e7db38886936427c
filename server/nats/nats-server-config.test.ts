import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsAuthority, type NatsAuthority } from './nats-authority.js';
import { findNatsServerBinary } from './nats-server-binary.js';
import { accountNatsPermissions, renderNatsServerConfig, type NatsServerConfigInput } from './nats-server-config.js';
import { makeTemporaryDataDir, randomSecret } from './test-support/nats-test-support.js';

let authority: NatsAuthority;
beforeAll(async () => {
  authority = await createNatsAuthority(randomSecret());
});

function input(overrides: Partial<NatsServerConfigInput> = {}): NatsServerConfigInput {
  return {
    port: 14222,
    websocketPort: 14280,
    dataDir: '/var/lib/harness/local',
    authority,
    ...overrides,
  };
}

describe('renderNatsServerConfig', () => {
  it('listens on loopback only, with a WebSocket listener, bounded JetStream in the data folder and no monitoring port', () => {
    const config = renderNatsServerConfig(input());
    expect(config).toContain('listen: "127.0.0.1:14222"');
    expect(config).toMatch(/websocket \{\s+listen: "127\.0\.0\.1:14280"\s+no_tls: true\s+\}/);
    expect(config).toContain('store_dir: "/var/lib/harness/local/nats/jetstream"');
    expect(config).toMatch(/max_memory_store: \d+/);
    expect(config).toMatch(/max_file_store: \d+/);
    expect(config).not.toMatch(/http|monitor/);
    expect(config).not.toMatch(/0\.0\.0\.0/);
  });

  it('uses decentralized JWT authentication: the operator and the preloaded accounts, no user and no secret', () => {
    const config = renderNatsServerConfig(input());
    expect(config).toContain(`operator: "${authority.operatorJwt}"`);
    expect(config).toContain(`system_account: "${authority.systemAccountPublicKey}"`);
    expect(config).toContain('resolver: MEMORY');
    expect(config).toContain(`${authority.accountPublicKey}: "${authority.accountJwts[authority.accountPublicKey]}"`);
    expect(config).not.toMatch(/users|password|token|"S[OAU][A-Z2-7]{20,}/);
    expect(accountNatsPermissions('acc_1')).toEqual({
      publish: { allow: ['harness.v1.acc_1.>'], deny: ['$JS.>', '$KV.>', '$O.>', '$SYS.>'] },
      subscribe: { allow: ['_INBOX.acc_1.>'], deny: ['$JS.>', '$KV.>', '$O.>', '$SYS.>'] },
    });
  });

  it('refuses a seed in place of a public key, and ports out of range', () => {
    expect(() => renderNatsServerConfig(input({ authority: { ...authority, systemAccountPublicKey: 'SAAGNJOZTRPYYXG2NJX3ZNGXYUSDYX2BWO447W3SHG6XQ7U66RWHQ3JUXM' } }))).toThrow(/public nkeys/);
    expect(() => renderNatsServerConfig(input({ websocketPort: 0 }))).toThrow(/websocketPort/);
    for (const accountId of ['acc.1', 'acc_*', '>', '', 'a b']) expect(() => accountNatsPermissions(accountId)).toThrow(/accountId/);
  });

  it('escapes a data folder with quotes and backslashes', () => {
    const config = renderNatsServerConfig(input({ dataDir: '/tmp/we"ird\\folder' }));
    expect(config).toContain('store_dir: "/tmp/we\\"ird\\\\folder/nats/jetstream"');
  });

  it('adds a server name, its own store and the routes of a local cluster', () => {
    const config = renderNatsServerConfig(input({ serverName: 'harness-1', storeDir: '/tmp/n1/js', cluster: { name: 'harness', port: 16222, routes: ['nats-route://127.0.0.1:16222', 'nats-route://127.0.0.1:16223'] } }));
    expect(config).toContain('server_name: "harness-1"');
    expect(config).toContain('store_dir: "/tmp/n1/js"');
    expect(config).toMatch(/cluster \{\s+name: "harness"\s+listen: "127\.0\.0\.1:16222"\s+routes: \["nats-route:\/\/127\.0\.0\.1:16222", "nats-route:\/\/127\.0\.0\.1:16223"\]\s+\}/);
  });
});

describe('the real nats-server binary', () => {
  let folder: Awaited<ReturnType<typeof makeTemporaryDataDir>>;
  let binary: string;
  beforeAll(async () => {
    folder = await makeTemporaryDataDir();
    binary = await findNatsServerBinary();
  });
  afterAll(async () => {
    await folder.remove();
  });

  async function check(config: string): Promise<{ exitCode: number | undefined; output: string }> {
    const path = join(folder.path, 'check.conf');
    await writeFile(path, config, { mode: 0o600 });
    const result = await execa(binary, ['-t', '-c', path], { reject: false, all: true });
    return { exitCode: result.exitCode, output: result.all ?? '' };
  }

  it('accepts the generated configuration, alone and as a cluster member', async () => {
    const result = await check(renderNatsServerConfig(input({ dataDir: folder.path })));
    expect(result.output).toMatch(/is valid/);
    expect(result.exitCode).toBe(0);
    const clustered = await check(renderNatsServerConfig(input({ dataDir: folder.path, serverName: 'n1', cluster: { name: 'c', port: 16222, routes: ['nats-route://127.0.0.1:16223'] } })));
    expect(clustered.output).toMatch(/is valid/);
    expect(result.output).toMatch(/is valid/);
    expect(result.exitCode).toBe(0);
  });

  it('refuses a token beside a users list, which is why the service token is a password', async () => {
    const result = await check('listen: "127.0.0.1:14222"\nauthorization {\n  token: "abc"\n  users: [ { user: "a", password: "b" } ]\n}\n');
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('Can not have a token and a users array');
  });
});
