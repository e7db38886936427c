import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { runInSpan, startSpan } from '../core/telemetry/spans.js';
import { contextOf } from '../core/telemetry/traceparent.js';
import { tracingState } from '../core/telemetry/tracing-state.js';

/**
 * A server span per HTTP request, when tracing is on (no hooks at all when it is off): the
 * method, the route template (never the path itself, which may carry ids and tokens), the
 * status code; never headers, queries or bodies. A W3C `traceparent` header from the caller is
 * honoured as the parent. The handler runs with the span active, so the turn it starts is a
 * child.
 */
export function installRequestTracing(app: FastifyInstance): void {
  if (!tracingState()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const traceparent = request.headers.traceparent;
    const span = startSpan(request.method, () => ({ 'http.request.method': request.method, 'url.scheme': 'http' }), {
      kind: SpanKind.SERVER,
      parent: contextOf(typeof traceparent === 'string' ? traceparent : undefined),
    });
    if (span) spans.set(request, span);
    runInSpan(span, done);
  });
  // The body is parsed between the two hooks, in the socket's own async context: the span is
  // made active again for the handler.
  app.addHook('preHandler', (request, _reply, done) => {
    runInSpan(spans.get(request), done);
  });
  const end = (request: FastifyRequest, statusCode: number | undefined): void => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    const route = request.routeOptions.url;
    if (route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    if (statusCode !== undefined) {
      span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute('error.type', 'request_aborted');
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
