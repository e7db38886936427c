import { describe, expect, it } from 'vitest';
import { sandboxEnvironment } from './sandbox-environment.js';

const service = { HARNESS_ADMIN_SECRET: 'admin-secret', ALPHA_API_KEY: 'tvly-key', NATS_TOKEN: 'nats', GIT_AUTHOR_NAME: 'Ada', PATH: '/opt/evil/bin' };

describe('sandboxEnvironment', () => {
  it('copies only what the agent asks for and the operator lets through', () => {
    expect(sandboxEnvironment(['ALPHA_API_KEY', 'GIT_AUTHOR_NAME'], ['GIT_AUTHOR_NAME'], service, '/workspace')).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      LANG: 'C.UTF-8',
      GIT_AUTHOR_NAME: 'Ada',
      HOME: '/workspace',
    });
  });

  it('never copies HARNESS_* or NATS_* variables, even when both lists name them', () => {
    const environment = sandboxEnvironment(['HARNESS_ADMIN_SECRET', 'NATS_TOKEN'], ['HARNESS_ADMIN_SECRET', 'NATS_TOKEN'], service, '/workspace');
    expect(Object.keys(environment).sort()).toEqual(['HOME', 'LANG', 'PATH']);
  });

  it('passes nothing of the service by default (the operator list is empty)', () => {
    expect(Object.keys(sandboxEnvironment(['ALPHA_API_KEY', 'GIT_AUTHOR_NAME'], [], service, '/w')).sort()).toEqual(['HOME', 'LANG', 'PATH']);
  });
});
