import { describe, expect, it } from 'vitest';
import { postgresSettingsFromEnvironment } from './postgres-settings.js';

describe('postgresSettingsFromEnvironment', () => {
  it('is off without HARNESS_DATABASE_URL: the embedded lowdb storage', () => {
    expect(postgresSettingsFromEnvironment({})).toBeUndefined();
    expect(postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: '' })).toBeUndefined();
  });

  it('reads the URL and the pool size, with a default pool of 10', () => {
    expect(postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://user:secret@db:5432/harness' })).toEqual({ connectionString: 'postgres://user:secret@db:5432/harness', poolSize: 10, startWaitMilliseconds: 30_000 });
    expect(postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://db/harness', HARNESS_DATABASE_WAIT_MS: '0' })?.startWaitMilliseconds).toBe(0);
    expect(postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgresql://db/harness', HARNESS_DATABASE_POOL_SIZE: '25' })?.poolSize).toBe(25);
    expect(postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://db/env' }, 'postgres://db/given')?.connectionString).toBe('postgres://db/given');
  });

  it('refuses what is not a postgres URL or a pool size, naming the setting', () => {
    expect(() => postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'db:5432' })).toThrow(/HARNESS_DATABASE_URL must start with postgres:\/\//);
    expect(() => postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'not a url' })).toThrow(/HARNESS_DATABASE_URL must be a URL/);
    expect(() => postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://db/x', HARNESS_DATABASE_POOL_SIZE: '0' })).toThrow(/HARNESS_DATABASE_POOL_SIZE/);
    expect(() => postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://db/x', HARNESS_DATABASE_POOL_SIZE: 'many' })).toThrow(/HARNESS_DATABASE_POOL_SIZE/);
    expect(() => postgresSettingsFromEnvironment({ HARNESS_DATABASE_URL: 'postgres://db/x', HARNESS_DATABASE_WAIT_MS: 'soon' })).toThrow(/HARNESS_DATABASE_WAIT_MS/);
  });
});
