/**
 * What the page remembers, in the tab's session storage only: it is gone when the tab closes
 * and never reaches a URL, a log or another tab. The conversation key and agent are also in the
 * URL hash (they are not secrets), so a reload or a copied link finds the conversation again.
 */
const secretKey = 'harness.playground.secret';

export function savedSecret(): string | undefined {
  return sessionStorage.getItem(secretKey) ?? undefined;
}

export function saveSecret(secret: string): void {
  sessionStorage.setItem(secretKey, secret);
}

export function forgetSecret(): void {
  sessionStorage.removeItem(secretKey);
}

export interface ChatLocation {
  agentId?: string;
  conversationKey?: string;
}

/** `#agent=<id>&conversation=<key>`. */
export function readLocation(): ChatLocation {
  const parameters = new URLSearchParams(window.location.hash.slice(1));
  return { agentId: parameters.get('agent') ?? undefined, conversationKey: parameters.get('conversation') ?? undefined };
}

export function writeLocation(location: ChatLocation): void {
  const parameters = new URLSearchParams();
  if (location.agentId) parameters.set('agent', location.agentId);
  if (location.conversationKey) parameters.set('conversation', location.conversationKey);
  const hash = parameters.toString();
  window.history.replaceState(null, '', hash ? `#${hash}` : window.location.pathname);
}

/**
 * Keys this tab made up and has not loaded from the service: nothing is stored under them yet,
 * so the page does not ask (the answer would be a 404, which the browser logs as an error).
 */
const unsentKeys = new Set<string>();

export function newConversationKey(): string {
  const key = `playground-${crypto.randomUUID()}`;
  unsentKeys.add(key);
  return key;
}

/** Whether `key` is one this tab made up, so nothing can be stored or running under it. */
export function isNewConversation(key: string): boolean {
  return unsentKeys.has(key);
}
