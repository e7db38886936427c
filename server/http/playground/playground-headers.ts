/**
 * What the page may load: its own script and stylesheet, and calls to this service only. No
 * inline script or style, no eval, no framing (the page handles an account secret), no
 * plugins, and forms and `<base>` pinned down.
 */
export const playgroundContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Headers on every playground file. The referrer is never sent: no URL of the page leaks to another site. */
export const playgroundHeaders: Record<string, string> = {
  'content-security-policy': playgroundContentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // The build is small and changes with every install; a reload always gets the current one.
  'cache-control': 'no-cache',
};
