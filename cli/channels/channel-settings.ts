import { randomBytes } from 'node:crypto';
import { channelProviders, isChannelProvider, type ChannelProvider } from '../../server/core/channels/channel-registry.js';
import { isSecretFieldName } from '../../server/core/secrets/redaction.js';
import { UsageError } from '../cli-error.js';


export function checkProvider(provider: string): ChannelProvider {
  if (!isChannelProvider(provider)) throw new UsageError(`unknown channel provider "${provider}" (known: ${channelProviders.join(', ')})`);
  return provider;
}

/**
 * Parses one `--option key=value`. Channel settings are all text, so the value is taken as
 * it is (a page id of digits stays a string). Secrets are refused: argv ends up in shell
 * history and process listings.
 */
export function parseSettingAssignment(assignment: string): [string, string] {
  const separator = assignment.indexOf('=');
  const key = separator === -1 ? '' : assignment.slice(0, separator).trim();
  if (!key) throw new UsageError(`--option expects key=value, got "${assignment}"`);
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new UsageError(`--option cannot set "${key}"`);
  // The service's own rule for which fields are secret, so the CLI never puts one on argv.
  if (isSecretFieldName(key)) throw new UsageError(`${key} is a secret: pass it with --secret-stdin ${key}, never on the command line`);
  return [key, assignment.slice(separator + 1)];
}

/** Commander reducer for repeated `--option key=value`. */
export function collectSetting(assignment: string, previous: Record<string, string> = {}): Record<string, string> {
  const [key, value] = parseSettingAssignment(assignment);
  return { ...previous, [key]: value };
}

/** Commander reducer for repeated `--secret-stdin <name>` (and `--unset <name>`). */
export function collectName(name: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new UsageError(`"${name}" is not a setting name`);
  if (previous.includes(name)) throw new UsageError(`${name} is named twice`);
  return [...previous, name];
}

/**
 * Splits what stdin gave into one secret per name, in order: one line each. A missing or
 * empty line is a usage error that names the secret (never shows a value).
 */
export function secretsFromLines(names: string[], text: string): Record<string, string> {
  const lines = text.split(/\r?\n/);
  const secrets: Record<string, string> = {};
  names.forEach((name, index) => {
    const value = lines[index] ?? '';
    if (value.trim() === '') throw new UsageError(`--secret-stdin ${name}: line ${index + 1} of stdin is empty; give one line per secret, in the order named`);
    secrets[name] = value;
  });
  return secrets;
}

/** A fresh shared token for Pancake's webhook URL (Pancake signs nothing). */
export function generateVerifyToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The URL to register with the provider; Pancake's carries the shared token. */
export function webhookUrl(agentUrl: string, accountId: string, agentId: string, provider: string, verifyToken?: string): string {
  const base = `${agentUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(accountId)}/${encodeURIComponent(agentId)}/${provider}`;
  if (provider !== 'pancake') return base;
  return `${base}?token=${verifyToken === undefined ? '<verifyToken>' : encodeURIComponent(verifyToken)}`;
}

/** One setting as `list` shows it: secrets as `set` (with their last 4 when the service shows them). */
export function describeSetting(name: string, value: unknown): string {
  if (typeof value === 'object' && value !== null && (value as { redacted?: unknown }).redacted === true) {
    const last4 = (value as { last4?: unknown }).last4;
    return `${name}=set${typeof last4 === 'string' ? ` (…${last4})` : ''}`;
  }
  return `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
}

/** Where each provider takes the URL, for the line printed after `set`. */
export const registrationHints: Record<ChannelProvider, string> = {
  telegram: 'Register it with the Bot API: setWebhook url=<this URL> secret_token=<secretToken>.',
  github: 'Add it as a repository webhook: content type application/json, secret = webhookSecret, events Issues and Issue comments.',
  slack: 'Set it as the Events API Request URL; subscribe to app_mention and message.im.',
  discord: 'Set it as the Interactions Endpoint URL of the application.',
  pancake: 'Set it as the page webhook URL in Pancake; keep it secret: the token in it is the only check.',
  zalo: 'Register it with setWebhook url=<this URL> secret_token=<secretToken>.',
};
