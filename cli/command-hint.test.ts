import { describe, expect, it } from 'vitest';
import { commandHint, harnessPrefix, shellWord, verbatim } from './command-hint.js';

describe('commandHint', () => {
  it('starts with npx harness under npx, npm exec and npm run, else harness', () => {
    expect(harnessPrefix({ npm_command: 'exec' })).toBe('npx harness');
    expect(harnessPrefix({ npm_command: 'run' })).toBe('npx harness');
    expect(harnessPrefix({ npm_command: 'run-script' })).toBe('npx harness');
    expect(harnessPrefix({})).toBe('harness');
    expect(commandHint({ npm_command: 'exec' })('serve')).toBe('npx harness serve');
    expect(commandHint({})('serve')).toBe('harness serve');
  });

  it('names a profile other than default before the subcommand', () => {
    expect(commandHint({}, 'demo')('chat', 'demo')).toBe('harness --profile demo chat demo');
    expect(commandHint({ npm_command: 'exec' }, 'demo')('chat', 'demo')).toBe('npx harness --profile demo chat demo');
    expect(commandHint({}, 'default')('chat', 'demo')).toBe('harness chat demo');
    expect(commandHint({})('chat', 'demo')).toBe('harness chat demo');
  });

  it('quotes what the shell would split or expand, and leaves placeholders as they are', () => {
    expect(commandHint({}, 'my profile')('chat', 'helper', '--conversation', 'my chat')).toBe("harness --profile 'my profile' chat helper --conversation 'my chat'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('')).toBe("''");
    expect(shellWord('cli-1732243200000-a1b2c3')).toBe('cli-1732243200000-a1b2c3');
    expect(shellWord('$HOME')).toBe("'$HOME'");
    expect(commandHint({})('agent', 'put', verbatim('<agentId>'), '--file', 'config.json')).toBe('harness agent put <agentId> --file config.json');
  });
});
