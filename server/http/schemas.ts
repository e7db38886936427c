/** JSON schemas shared by routes (Fastify validates requests and serializes answers with them). */

// The response views are the API contract's (contract/), which the client types are derived from.
export { accountView, agentView, modelMessages, pendingApprovalView, pendingAsyncToolView, rootView } from '../../contract/common-views.js';

export const agentIdParams = {
  type: 'object',
  required: ['agentId'],
  properties: { agentId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: 'The agent id, chosen by the account.' } },
} as const;

/**
 * An id the service made (`eventId`, `resultId`) named in a path: printable text only. A NUL
 * can never be stored (PostgreSQL text refuses it), so such an id is a client's mistake (400).
 */
export function serviceIdParams<Name extends string>(name: Name) {
  return {
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]+$' } } as Record<Name, { type: 'string'; minLength: 1; maxLength: 100; pattern: string }>,
  } as const;
}
