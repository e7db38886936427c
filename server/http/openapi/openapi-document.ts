import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { packageVersion } from '../../core/package-version.js';
import { errorSchema } from './error-responses.js';
import { documentInternalError } from './route-defaults.js';

/** What the document says about the service it describes. */
export interface DocumentInfo {
  title: string;
  description: string;
}

export const openApiPath = '/openapi.json';

/** What the document calls a route's trailing wildcard (`/files/*`): a path parameter named `*` trips client generators. */
export const wildcardParameterName = 'path';

type Operation = { parameters?: { in?: string; name?: string }[] };

/** `/files/{*}` becomes `/files/{path}`, with its parameter renamed to match. */
function nameWildcards<T extends { paths?: object }>(document: T): T {
  if (!document.paths) return document;
  const paths: Record<string, unknown> = {};
  for (const [path, pathItem] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    if (!path.endsWith('/{*}')) {
      paths[path] = pathItem;
      continue;
    }
    for (const operation of Object.values(pathItem)) {
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'path' && parameter.name === '*') parameter.name = wildcardParameterName;
    }
    paths[`${path.slice(0, -'{*}'.length)}{${wildcardParameterName}}`] = pathItem;
  }
  return { ...document, paths };
}

/**
 * Builds the service's OpenAPI 3.1 document from the route schemas. Call before any route is
 * added: the document sees only the routes registered after its plugin has loaded (in a
 * plugin registered after this call). Shared schemas become components named by their `$id`.
 */
export function registerOpenApiDocument(app: FastifyInstance, info: DocumentInfo): void {
  app.addSchema(errorSchema);
  documentInternalError(app);
  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: info.title, description: info.description, version: packageVersion },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: "The account's secret (`ACCOUNT_SECRET`), shown once by `POST /accounts`." },
          adminBearer: { type: 'http', scheme: 'bearer', description: "The stage's admin secret (`HARNESS_ADMIN_SECRET`)." },
        },
      },
    },
    transformObject: (documentObject) => ('openapiObject' in documentObject ? nameWildcards(documentObject.openapiObject) : documentObject.swaggerObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
  });
}

/** `GET /openapi.json`, without a bearer. The document is built on the first request, once every route exists, and kept. */
export function serveOpenApiDocument(app: FastifyInstance): void {
  let documentText: string | undefined;
  app.get(
    openApiPath,
    {
      schema: {
        summary: 'This OpenAPI 3.1 document',
        tags: ['service'],
        response: { 200: { description: 'The OpenAPI 3.1 document of this service.', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } },
      },
    },
    async (_request, reply) => {
      documentText ??= JSON.stringify(app.swagger());
      return reply.type('application/json; charset=utf-8').send(documentText);
    },
  );
}
