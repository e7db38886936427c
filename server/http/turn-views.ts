/**
 * The turn routes' views and the documented chat body live in the API contract
 * (contract/turn-views.ts), where the client's types are derived from them.
 */
export { asyncSubmittedView, chatAnswerView, completionAnswerView, conversationView, documentedChatBody, statusRowView } from '../../contract/turn-views.js';
