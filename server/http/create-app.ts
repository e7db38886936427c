import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { errorBody, installErrorHandling } from './error-handler.js';
import { type DocumentInfo, registerOpenApiDocument, serveOpenApiDocument } from './openapi/openapi-document.js';
import { ensureTracingStarted } from '../telemetry/ensure-tracing.js';
import { installRequestTracing } from './request-tracing.js';

export const bodyLimitBytes = 1024 * 1024;
const maxPathParameterLength = 2048;

/** A route as registered: what the fuzz and auth-matrix tests walk. */
export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of this service (filled as routes are registered). */
    routeCatalog: RouteEntry[];
  }
}

export interface AppOptions {
  /** The process's pino logger; omitted means no logs (tests). */
  logger?: FastifyBaseLogger;
}

/**
 * The Fastify settings both services share: JSON only, a 1 MiB body limit, no type coercion
 * of bodies, the contract's error shape for everything, and the OpenAPI document at
 * `/openapi.json`. Request logs carry the path without its query (a query may carry a
 * channel's token) and never headers. `registerRoutes` adds the service's routes; they load
 * after the document's plugin, whose hook must see every one of them.
 */
export function createApp(options: AppOptions, document: DocumentInfo, registerRoutes: (app: FastifyInstance) => void): FastifyInstance {
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false } },
    return503OnClosing: true,
    // Room for a URL-encoded conversation key (256 characters, several bytes each).
    routerOptions: { maxParamLength: maxPathParameterLength },
    // The router's own refusals answer in the contract's shape too.
    frameworkErrors: (error, _request, reply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `A path parameter is longer than ${maxPathParameterLength} characters.` : 'The URL is not valid (bad percent-encoding?).';
      void (reply as unknown as FastifyReply).status(400).send(errorBody('invalid_request', message));
    },
  });
  // JSON only: without this, text/plain bodies would reach the handlers as strings.
  app.removeContentTypeParser('text/plain');
  // `application/merge-patch+json` (RFC 7396) and other `+json` types parse as JSON too.
  app.addContentTypeParser(/^application\/[a-z0-9.+-]*\+json$/, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  installErrorHandling(app);
  // Tracing starts with the first app built while an OTLP endpoint is set (or joins what
  // `serve` started), and this app holds it until it closes.
  const tracing = ensureTracingStarted(options.logger ? { logger: options.logger } : {});
  if (tracing) app.addHook('onClose', () => tracing.release());
  installRequestTracing(app);
  const routes: RouteEntry[] = [];
  app.decorate('routeCatalog', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  registerOpenApiDocument(app, document);
  void app.register(async (scope) => {
    serveOpenApiDocument(scope);
    registerRoutes(scope);
  });
  return app;
}
