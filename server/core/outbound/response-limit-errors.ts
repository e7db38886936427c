import { UpstreamError } from '../errors.js';

/**
 * An outside service's answer was larger than the service reads. The message names what was
 * read and the limit, never a byte of the body (a peer's body is never echoed to a caller).
 */
export class ResponseTooLargeError extends UpstreamError {
  constructor(
    readonly what: string,
    readonly maxBytes: number,
  ) {
    super(`${what} exceeded ${maxBytes} bytes`);
  }
}

/** An outside service's answer took longer, from the request to its last byte, than the service waits. */
export class ResponseTimedOutError extends UpstreamError {
  constructor(
    readonly what: string,
    readonly maxMs: number,
  ) {
    super(`${what} took longer than ${maxMs} ms`);
  }
}
