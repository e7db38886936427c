import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNatsServerBinary } from './nats-server-binary.js';
import { accountNatsPermissions, renderNatsServerConfig, type NatsServerConfigInput } from './nats-server-config.js';
import { makeTemporaryDataDir } from './test-support/nats-test-support.js';

const hash = bcrypt.hashSync('not-the-real-password', 4);

function input(overrides: Partial<NatsServerConfigInput> = {}): NatsServerConfigInput {
  return {
    port: 14222,
    websocketPort: 14280,
    dataDir: '/var/lib/harness/local',
    serviceUser: { user: 'harness-service', passwordHash: hash },
    accountUsers: [{ accountId: 'acc_1', user: 'account-acc_1', passwordHash: hash }],
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

  it('gives the service user every permission and each account only its own subjects and inbox', () => {
    const config = renderNatsServerConfig(input());
    expect(config).toMatch(/\{ user: "harness-service", password: "\$2[ab]\$04\$[^"]+" \}/);
    expect(config).toContain('publish: { allow: ["harness.v1.acc_1.>"]');
    expect(config).toContain('subscribe: { allow: ["_INBOX.acc_1.>"]');
    expect(config).not.toContain('allow_responses');
    expect(accountNatsPermissions('acc_1')).toEqual({
      publish: { allow: ['harness.v1.acc_1.>'], deny: ['$JS.>', '$KV.>', '$O.>', '$SYS.>'] },
      subscribe: { allow: ['_INBOX.acc_1.>'], deny: ['$JS.>', '$KV.>', '$O.>', '$SYS.>'] },
    });
  });

  it('refuses a password that is not a bcrypt hash', () => {
    expect(() => renderNatsServerConfig(input({ serviceUser: { user: 'harness-service', passwordHash: 'plaintext' } }))).toThrow(/bcrypt hash/);
    expect(() =>
      renderNatsServerConfig(input({ accountUsers: [{ accountId: 'acc_1', user: 'account-acc_1', passwordHash: 'plaintext' }] })),
    ).toThrow(/bcrypt hash/);
  });

  it('refuses account ids that are not a single subject token, and ports out of range', () => {
    for (const accountId of ['acc.1', 'acc_*', '>', '', 'a b']) {
      expect(() => renderNatsServerConfig(input({ accountUsers: [{ accountId, user: 'x', passwordHash: hash }] }))).toThrow(/accountId/);
    }
    expect(() => renderNatsServerConfig(input({ websocketPort: 0 }))).toThrow(/websocketPort/);
  });

  it('escapes a data folder with quotes and backslashes', () => {
    const config = renderNatsServerConfig(input({ dataDir: '/tmp/we"ird\\folder' }));
    expect(config).toContain('store_dir: "/tmp/we\\"ird\\\\folder/nats/jetstream"');
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

  it('accepts the generated configuration', async () => {
    const result = await check(renderNatsServerConfig(input({ dataDir: folder.path })));
    expect(result.output).toMatch(/is valid/);
    expect(result.exitCode).toBe(0);
  });

  it('refuses a token beside a users list, which is why the service token is a password', async () => {
    const result = await check('listen: "127.0.0.1:14222"\nauthorization {\n  token: "abc"\n  users: [ { user: "a", password: "b" } ]\n}\n');
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('Can not have a token and a users array');
  });
});
