/**
 * The body the `test_external_async` tool POSTs to the mock worker, and the
 * checks the worker makes before accepting it.
 */
export interface DispatchPayload {
  resultId: string;
  toolCallId: string;
  toolName: string;
  /** The tool's input as the model gave it; echoed back in the completion. */
  input: unknown;
  /** Absolute URL: the agent service's address + the row's `completePath`. */
  completeUrl: string;
  /** Sent with the completion as they are; carries `Authorization: Bearer <secret>`. */
  completionHeaders: Record<string, string>;
}

export type PayloadCheck = { ok: true; payload: DispatchPayload } | { ok: false; message: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a parsed dispatch body; the message names the first field that is wrong. */
export function checkDispatchPayload(body: unknown): PayloadCheck {
  if (!isRecord(body)) return { ok: false, message: 'the body must be a JSON object' };
  for (const field of ['resultId', 'toolCallId', 'toolName'] as const) {
    const value = body[field];
    if (typeof value !== 'string' || value === '') return { ok: false, message: `${field} is required (a non-empty string)` };
  }
  if (!('input' in body)) return { ok: false, message: 'input is required (the tool input, any JSON value)' };
  const completeUrl = body.completeUrl;
  if (typeof completeUrl !== 'string' || completeUrl === '') return { ok: false, message: 'completeUrl is required (an absolute http(s) URL)' };
  if (!isAbsoluteHttpUrl(completeUrl)) {
    return { ok: false, message: `completeUrl must be an absolute http(s) URL (the agent service address + completePath), got "${completeUrl.slice(0, 200)}"` };
  }
  const headers = body.completionHeaders;
  if (!isRecord(headers) || Object.values(headers).some((value) => typeof value !== 'string')) {
    return { ok: false, message: 'completionHeaders is required (an object of header names to string values)' };
  }
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    return { ok: false, message: 'completionHeaders.Authorization is required (Bearer <account secret>)' };
  }
  return {
    ok: true,
    payload: {
      resultId: body.resultId as string,
      toolCallId: body.toolCallId as string,
      toolName: body.toolName as string,
      input: body.input,
      completeUrl,
      completionHeaders: headers as Record<string, string>,
    },
  };
}

export function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A URL fit for a log line: no user-info (a password could sit there), no query string. */
export function urlForLog(value: string): string {
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
