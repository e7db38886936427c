import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/harness-core.js';
import type { NatsCredentialsView } from '../../nats/nats-protocol.js';
import { currentAccount, requireAccount } from '../authentication.js';

/** An account's NATS credentials, or undefined when NATS is disabled. */
export type NatsCredentialsProvider = (accountId: string) => Promise<NatsCredentialsView | undefined>;

const nullableString = { type: ['string', 'null'] } as const;

const natsCredentialsView = {
  type: 'object',
  required: ['url', 'websocketUrl', 'user', 'password', 'jwt', 'creds', 'inboxPrefix', 'chatSubject', 'replaySubject', 'replySubject'],
  properties: {
    url: nullableString,
    websocketUrl: nullableString,
    user: { type: 'string' },
    password: { type: 'string' },
    jwt: nullableString,
    creds: nullableString,
    inboxPrefix: { type: 'string' },
    chatSubject: { type: 'string' },
    replaySubject: { type: 'string' },
    replySubject: { type: 'string' },
  },
} as const;

/**
 * `GET /accounts/me/nats`: what the account needs to chat over NATS, its secret included
 * (a freshly signed user JWT and its seed, or a derived password; never stored; shown to
 * the holder of the account secret, as `POST /accounts` shows the secret). 404 when NATS is
 * disabled.
 */
export function registerNatsCredentialsRoutes(app: FastifyInstance, core: HarnessCore, provider: NatsCredentialsProvider | undefined): void {
  requireAccount(app, core, (scope) => {
    scope.get('/accounts/me/nats', { schema: { response: { 200: natsCredentialsView } } }, async (request) => {
      const credentials = await provider?.(currentAccount(request).accountId);
      if (!credentials) throw new NotFoundError('NATS is disabled on this service (ENABLE_WEBSOCKET=false, or nats-server is not installed).');
      return credentials;
    });
  });
}
