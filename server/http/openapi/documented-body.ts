import type { SwaggerTransform } from '@fastify/swagger';

type MediaTypes = Record<string, { schema: Record<string, unknown> }>;

/**
 * The request body as the document shows it, where it differs from the route's `body` schema:
 * a route that reads raw bytes (an upload, a provider-signed webhook) has no body schema, since
 * Fastify would validate the bytes against it; and a route whose core checks the body itself
 * (naming the field in its 400) validates only that it is an object. Use as the route's
 * `config.swaggerTransform`.
 */
export function documentedBody(content: MediaTypes, description?: string): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, body: { content, ...(description ? { description } : {}) } }, url });
}
