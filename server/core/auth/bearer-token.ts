/**
 * The token of an `Authorization: Bearer <token>` header value, if it is one: the scheme in
 * any case, one token, surrounding blanks allowed. HTTP and NATS requests both carry the
 * account secret this way and read it here.
 */
export function parseBearerToken(header: string | undefined | null): string | undefined {
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}
