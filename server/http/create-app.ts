import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { installErrorHandling } from './error-handler.js';

export const bodyLimitBytes = 1024 * 1024;

export interface AppOptions {
  /** The process's pino logger; omitted means no logs (tests). */
  logger?: FastifyBaseLogger;
}

/**
 * The Fastify settings both services share: JSON only, a 1 MiB body limit, no type coercion
 * of bodies, and the contract's error shape for everything. Request logs carry the path
 * without its query (a query may carry a channel's token) and never headers.
 */
export function createApp(options: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false } },
    return503OnClosing: true,
  });
  // JSON only: without this, text/plain bodies would reach the handlers as strings.
  app.removeContentTypeParser('text/plain');
  // `application/merge-patch+json` (RFC 7396) and other `+json` types parse as JSON too.
  app.addContentTypeParser(/^application\/[a-z0-9.+-]*\+json$/, { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  installErrorHandling(app);
  return app;
}
