import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import type { NatsCredentialsView } from '../../nats/nats-protocol.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';

/** An account's NATS credentials, or undefined when NATS is disabled. */
export type NatsCredentialsProvider = (accountId: string) => Promise<NatsCredentialsView | undefined>;

const nullableString = { type: ['string', 'null'] } as const;

const natsCredentialsView = {
  type: 'object',
  description: "What the account needs to chat over NATS, its secret included (never stored; shown to the holder of the account's secret).",
  required: ['authentication', 'url', 'websocketUrl', 'user', 'password', 'jwt', 'creds', 'inboxPrefix', 'chatSubject', 'replaySubject', 'replySubject'],
  properties: {
    authentication: {
      type: 'string',
      enum: ['jwt', 'password', 'token', 'none', 'operator'],
      description:
        'jwt: connect with `jwt` and its seed (`password`), signed by the service. password: connect as `user` with `password`. ' +
        "token: the servers take a token their operator hands out (not the service). none: the servers ask for no credentials. operator: the servers take users their operator signs (nsc).",
    },
    url: nullableString,
    websocketUrl: nullableString,
    user: nullableString,
    password: nullableString,
    jwt: nullableString,
    creds: nullableString,
    inboxPrefix: { type: 'string' },
    chatSubject: { type: 'string' },
    replaySubject: { type: 'string' },
    replySubject: { type: 'string' },
  },
} as const;

/** What the NATS credentials route uses of the core: the bearer's account (the credentials come from the NATS side). */
export type NatsCredentialsRouteParts = Pick<HarnessCore, 'accounts'>;

/**
 * `GET /accounts/me/nats`: what the account needs to chat over NATS, its secret included
 * (a freshly signed user JWT and its seed, or a derived password; never stored; shown to
 * the holder of the account secret, as `POST /accounts` shows the secret). On an operator's
 * servers that take a token, or no credentials, there is no secret to give: `authentication`
 * says so. 404 when NATS is disabled.
 */
export function registerNatsCredentialsRoutes(app: FastifyInstance, core: NatsCredentialsRouteParts, provider: NatsCredentialsProvider | undefined): void {
  requireAccount(app, core, (scope) => {
    scope.get(
      '/accounts/me/nats',
      { schema: { summary: "The account's NATS credentials", description: 'A 404 when NATS is disabled.', tags: ['nats'], response: { 200: natsCredentialsView, ...errorResponses(404) } } },
      async (request) => {
        const credentials = await provider?.(currentAccount(request).accountId);
        if (!credentials) throw new NotFoundError('NATS is disabled on this service (ENABLE_WEBSOCKET=false, or nats-server is not installed).');
        return credentials;
      },
    );
  });
}
