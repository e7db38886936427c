import type { TurnResult } from '../turns/turn-runner.js';

/**
 * The words a channel user sees besides the model's own text, and the reason the model is
 * given when a tool is denied. Kept short and free of internals: channel messages are
 * visible to everyone in the chat.
 */

/** What the model is told when a tool that needs an approval is denied on a channel. */
export function channelDenialReason(toolName: string): string {
  return `${toolName} needs an approval, and approvals cannot be given from a chat channel, so it was not run. Tell the user it needs the direct API.`;
}

/** The visible notice for tools that needed an approval the channel cannot give. */
export function approvalNotice(toolNames: string[]): string {
  const names = toolNames.map((name) => `"${name}"`).join(', ');
  const subject = toolNames.length === 1 ? `The tool ${names} needs` : `The tools ${names} need`;
  return `${subject} an approval, which cannot be given from this chat, so ${toolNames.length === 1 ? 'it was' : 'they were'} not run.`;
}

/** Sent when a turn fails: the details go to the log, not to the chat. */
export const apologyText = 'Sorry, something went wrong while answering. Please try again in a moment.';

/** What a chat is told when its message met a running turn and the agent's busy mode refused it (`reject`, or a full line). */
export const busyText = 'I am still answering your previous message; send this one again once I have replied.';

/**
 * The messages to post for a finished turn, in order: the approval notice (when a tool was
 * denied), then the model's text, or the apology when the turn failed. A turn that waits
 * for async tools posts what it wrote so far; its continuation posts the rest.
 */
export function replyTextsFor(result: Pick<TurnResult, 'status' | 'text' | 'deniedApprovals'>): string[] {
  const texts: string[] = [];
  const denied = [...new Set(result.deniedApprovals.map((approval) => approval.toolName))];
  if (denied.length > 0) texts.push(approvalNotice(denied));
  if (result.status === 'failed') texts.push(apologyText);
  else if (result.text.trim() !== '') texts.push(result.text);
  return texts;
}
