import { errorResponses } from './openapi/error-responses.js';
import { usageQuery, usageReportView } from '../../contract/usage-views.js';

// The token usage view is the API contract's (contract/common-views.ts).
export { tokenUsageView } from '../../contract/common-views.js';

/** `GET /accounts/me/usage`: the query, the answer and its errors. */
export const usageRouteSchema = {
  summary: 'Token usage per agent and per day',
  description: "Sums the account's recorded token usage per agent and UTC day, from `from` to `to` (both included).",
  tags: ['accounts'],
  querystring: usageQuery,
  response: {
    200: usageReportView,
    ...errorResponses(400),
  },
} as const;
