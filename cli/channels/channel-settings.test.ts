import { describe, expect, it } from 'vitest';
import { isSecretFieldName } from '../../server/core/secrets/redaction.js';
import { collectName, parseSettingAssignment, secretsFromLines, webhookUrl } from './channel-settings.js';

describe('channel settings on the command line', () => {
  it('treats *Token, *Secret and apiKey as secrets, but not publicKey', () => {
    for (const name of ['botToken', 'secretToken', 'token', 'webhookSecret', 'signingSecret', 'accessToken', 'verifyToken', 'apiKey']) expect(isSecretFieldName(name)).toBe(true);
    for (const name of ['publicKey', 'pageId', 'applicationId', 'apiBaseUrl']) expect(isSecretFieldName(name)).toBe(false);
  });

  it('keeps option values as text and refuses secrets on argv', () => {
    expect(parseSettingAssignment('pageId=0123')).toEqual(['pageId', '0123']);
    expect(() => parseSettingAssignment('token=ghp_x')).toThrow('token is a secret');
    expect(() => parseSettingAssignment('noequals')).toThrow('key=value');
    expect(() => collectName('botToken', ['botToken'])).toThrow('named twice');
  });

  it('reads one secret per line, in order, and names a missing one', () => {
    expect(secretsFromLines(['a', 'b'], 'first\r\nsecond\n')).toEqual({ a: 'first', b: 'second' });
    expect(() => secretsFromLines(['a', 'b'], 'first\n')).toThrow('--secret-stdin b: line 2');
  });

  it('builds the webhook URL, with the token for Pancake', () => {
    expect(webhookUrl('http://h:4200/', 'acc_1', 'bot', 'slack')).toBe('http://h:4200/webhooks/acc_1/bot/slack');
    expect(webhookUrl('http://h:4200', 'acc_1', 'bot', 'pancake', 'a+b')).toBe('http://h:4200/webhooks/acc_1/bot/pancake?token=a%2Bb');
  });
});
