import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-error.js';
import { buildToolPatch, collectOption, parseOptionAssignment } from './tool-patch.js';

describe('parseOptionAssignment', () => {
  it('parses the value as JSON when it parses', () => {
    expect(parseOptionAssignment('searchDepth=5')).toEqual(['searchDepth', 5]);
    expect(parseOptionAssignment('includeImages=true')).toEqual(['includeImages', true]);
    expect(parseOptionAssignment('topic=null')).toEqual(['topic', null]);
    expect(parseOptionAssignment('domains=["a.com","b.com"]')).toEqual(['domains', ['a.com', 'b.com']]);
    expect(parseOptionAssignment('nested={"a":1}')).toEqual(['nested', { a: 1 }]);
  });

  it('keeps the value as text when it is not JSON', () => {
    expect(parseOptionAssignment('topic=news')).toEqual(['topic', 'news']);
    expect(parseOptionAssignment('completionBaseUrl=http://127.0.0.1:4200')).toEqual(['completionBaseUrl', 'http://127.0.0.1:4200']);
    expect(parseOptionAssignment('empty=')).toEqual(['empty', '']);
  });

  it('splits at the first "=" only', () => {
    expect(parseOptionAssignment('query=a=b')).toEqual(['query', 'a=b']);
  });

  it('refuses a missing key or "="', () => {
    expect(() => parseOptionAssignment('topic')).toThrow(UsageError);
    expect(() => parseOptionAssignment('=x')).toThrow('--option expects key=value, got "=x"');
  });

  it('points fields with their own flag at that flag', () => {
    expect(() => parseOptionAssignment('apiKey=sk-123')).toThrow('set apiKey with --api-key-stdin, not --option');
    expect(() => parseOptionAssignment('enabled=false')).toThrow('--enable/--disable');
  });

  it('refuses prototype keys', () => {
    expect(() => parseOptionAssignment('__proto__={"x":1}')).toThrow(UsageError);
  });
});

describe('collectOption', () => {
  it('gathers repeated flags, the last one winning', () => {
    const first = collectOption('topic=news');
    const second = collectOption('days=3', first);
    expect(collectOption('topic=finance', second)).toEqual({ topic: 'finance', days: 3 });
  });
});

describe('buildToolPatch', () => {
  it('holds only the changed fields of the one tool', () => {
    expect(buildToolPatch('alphaSearch', { enabled: true, maxResults: 5 })).toEqual({
      config: { tools: { alphaSearch: { enabled: true, maxResults: 5 } } },
    });
  });

  it('keeps false values, which disable rather than leave alone', () => {
    expect(buildToolPatch('test_async', { enabled: false, async: false, needsApproval: false })).toEqual({
      config: { tools: { test_async: { enabled: false, async: false, needsApproval: false } } },
    });
  });

  it('carries the API key and --option fields, null included (which removes a field)', () => {
    expect(
      buildToolPatch('test_external_async', {
        apiKey: 'sk-1',
        execution: 'external-dispatch',
        options: { completionBaseUrl: 'http://x', workerUrl: null },
      }),
    ).toEqual({
      config: {
        tools: { test_external_async: { apiKey: 'sk-1', execution: 'external-dispatch', completionBaseUrl: 'http://x', workerUrl: null } },
      },
    });
  });

  it('refuses a patch that changes nothing', () => {
    expect(() => buildToolPatch('alphaSearch', {})).toThrow(/nothing to change/);
    expect(() => buildToolPatch('alphaSearch', { options: {} })).toThrow(UsageError);
  });
});
