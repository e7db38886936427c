import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { type ErrorStatus, errorResponses } from './error-responses.js';

/** The document's security schemes: the account secret, and the stage's admin secret. */
export type SecurityScheme = 'bearer' | 'adminBearer';

/** Adds what every route of a kind shares to its schema; what the route declares itself wins. */
function addToSchema(route: RouteOptions, additions: { security?: FastifySchema['security']; errors: ErrorStatus[] }): void {
  const schema: FastifySchema = route.schema ?? {};
  const response = { ...errorResponses(...additions.errors), ...(schema.response as object | undefined) };
  route.schema = { ...schema, ...(additions.security && !schema.security ? { security: additions.security } : {}), response };
}

/**
 * Routes registered in `scope` are documented as needing `scheme` and as answering 401 without
 * it. Set where the bearer is checked, so a route cannot be behind the check and not say so.
 */
export function documentBearer(scope: FastifyInstance, scheme: SecurityScheme): void {
  scope.addHook('onRoute', (route) => addToSchema(route, { security: [{ [scheme]: [] }], errors: [401] }));
}

/** Every route can fail on a bug, answered 500 `internal` in the shared error shape. */
export function documentInternalError(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => addToSchema(route, { errors: [500] }));
}
