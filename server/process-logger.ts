import { pino, type Logger as PinoLogger } from 'pino';

/**
 * The process's one logger: JSON lines. Requests are logged by path only (a query may carry
 * a channel's token) and headers are never logged, so no bearer reaches a log line.
 */
export function createProcessLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: NodeJS.WritableStream): PinoLogger {
  return pino(
    {
      level,
      serializers: {
        req: (request: { method: string; url: string }) => ({ method: request.method, path: request.url.split('?')[0] }),
        res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      },
      redact: { paths: ['*.authorization', '*.apiKey', '*.secret', 'headers'], censor: '[redacted]' },
    },
    destination ?? process.stdout,
  );
}
