import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccount, startTestServices, type TestServices } from '../../../test/support/test-services.js';
import { buildAccountService } from '../account-service.js';
import { buildAgentService } from '../agent-service.js';
import { openApiPath, wildcardParameterName } from './openapi-document.js';

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, unknown> };
  parameters?: { in: string; name: string }[];
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;
}

type Document = { openapi: string; info: { version: string }; paths: Record<string, Record<string, Operation>> };

interface RegisteredRoute {
  method: string;
  url: string;
  /** The route reads a path parameter, a query or a body. */
  takesInput: boolean;
}

/** `/a/:b/*` as the document writes it: `/a/{b}/{path}`. */
function documentPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, `{${wildcardParameterName}}`);
}

/** Both services, each with an onRoute hook that sees every route the service adds. */
function buildWithRouteLog(services: TestServices): { name: string; app: FastifyInstance; routes: RegisteredRoute[] }[] {
  const built = [
    { name: 'account', app: buildAccountService({ core: services.core }) },
    { name: 'agent', app: buildAgentService({ core: services.core, playground: true }) },
  ];
  return built.map(({ name, app }) => {
    const routes: RegisteredRoute[] = [];
    app.addHook('onRoute', (route) => {
      const schema = route.schema ?? {};
      const takesInput = Boolean(schema.params || schema.querystring || schema.body) || route.url.includes(':');
      for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url, takesInput });
    });
    return { name, app, routes };
  });
}

describe('the OpenAPI documents', () => {
  let services: TestServices;
  let apps: { name: string; app: FastifyInstance; routes: RegisteredRoute[]; document: Document }[];

  beforeAll(async () => {
    services = await startTestServices();
    apps = [];
    for (const { name, app, routes } of buildWithRouteLog(services)) {
      await app.ready();
      const response = await app.inject({ method: 'GET', url: openApiPath });
      expect(response.statusCode, `${name}: ${response.body.slice(0, 200)}`).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      apps.push({ name, app, routes, document: response.json<Document>() });
    }
  });
  afterAll(async () => {
    await Promise.all(apps.map(({ app }) => app.close()));
    await services.close();
  });

  it('are valid OpenAPI 3.1, served without a bearer', async () => {
    for (const { name, document } of apps) {
      expect(document.openapi, name).toBe('3.1.0');
      const validator = new Validator();
      const result = await validator.validate(document as unknown as Record<string, unknown>);
      expect(result.errors ?? [], `${name}: ${JSON.stringify(result.errors)?.slice(0, 2000)}`).toEqual([]);
      expect(result.valid, name).toBe(true);
    }
  });

  it('list every registered route with its method, a 2xx answer (or a redirect) and the client errors it can give', () => {
    for (const { name, document, routes } of apps) {
      expect(routes.length, name).toBeGreaterThan(5);
      for (const route of routes) {
        const label = `${name}: ${route.method} ${route.url}`;
        const operation = document.paths[documentPath(route.url)]?.[route.method.toLowerCase()];
        expect(operation, `${label} is not in the document`).toBeDefined();
        const statuses = Object.keys(operation!.responses);
        expect(statuses.some((status) => status.startsWith('2') || status.startsWith('3')), `${label} has no 2xx or 3xx response`).toBe(true);
        expect(statuses, `${label} has no 500 response`).toContain('500');
        // A route that takes no input and no bearer (a probe) has no client error to give.
        if (route.takesInput || operation!.security) expect(statuses.some((status) => status.startsWith('4')), `${label} has no 4xx response`).toBe(true);
        for (const [status, response] of Object.entries(operation!.responses)) {
          expect(response.description, `${label} ${status}`).not.toBe('Default Response');
          if (status.startsWith('4') || status.startsWith('5')) expect(response.content?.['application/json']?.schema, `${label} ${status}`).toEqual(expect.objectContaining({ $ref: '#/components/schemas/ErrorResponse' }));
        }
      }
    }
  });

  it('mark the routes behind a bearer, each with its 401, and leave the public ones open', () => {
    const publicOperations = ['get /', `get ${openApiPath}`, 'post /accounts', 'post /webhooks/{accountId}/{agentId}/{provider}', 'get /playground', 'get /playground/', 'get /playground/{file}'];
    for (const { name, document } of apps) {
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const label = `${name}: ${method} ${path}`;
          if (publicOperations.includes(`${method} ${path}`)) {
            expect(operation.security?.some((requirement) => Object.keys(requirement).length === 0) ?? true, `${label} must be callable without a bearer`).toBe(true);
            continue;
          }
          const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
          expect(schemes, label).toEqual([path.startsWith('/admin/') ? 'adminBearer' : 'bearer']);
          expect(Object.keys(operation.responses), label).toContain('401');
        }
      }
    }
  });

  it('describe the chat stream, the raw upload and the provider payloads as the routes read and answer them', () => {
    const agentDocument = apps.find(({ name }) => name === 'agent')!.document;
    const chat = agentDocument.paths['/agents/{agentId}/chat']!.post!;
    expect(Object.keys(chat.responses['200']!.content!)).toEqual(['text/event-stream', 'application/json']);
    expect(Object.keys(chat.requestBody!.content)).toEqual(['application/json']);
    expect(Object.keys(agentDocument.paths['/webhooks/{accountId}/{agentId}/{provider}']!.post!.requestBody!.content)).toContain('application/x-www-form-urlencoded');
    const accountDocument = apps.find(({ name }) => name === 'account')!.document;
    const upload = accountDocument.paths['/accounts/me/agents/{agentId}/workspaces/{workspace}/files/{path}']!.put!;
    expect(Object.keys(upload.requestBody!.content)).toEqual(['application/octet-stream']);
    expect(upload.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(expect.arrayContaining(['path:agentId', 'path:workspace', 'path:path']));
  });

  it('keep the error shape whole through the response serializer', async () => {
    const accountApp = apps.find(({ name }) => name === 'account')!.app;
    const { secret } = await createAccount(accountApp, 'document-reader');
    const missing = await accountApp.inject({ method: 'GET', url: '/accounts/me/agents/nobody', headers: bearer(secret) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: expect.stringMatching(/\w/) } });
    const invalid = await accountApp.inject({ method: 'PUT', url: '/accounts/me/agents/bad', headers: bearer(secret), payload: { config: 'not an object' } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('body.config') } });
  });
});
