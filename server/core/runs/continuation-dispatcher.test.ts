import { describe, expect, expectTypeOf, it } from 'vitest';
import { dispatchGroup, now } from '../async-tools/test-support/async-rows.js';
import type { Logger } from '../logger.js';
import type { RunJob } from './run-queue.js';
import { type ContinuationDeliveries, ContinuationDispatcher } from './continuation-dispatcher.js';

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message?: string) => void lines.push({ level, fields, message });
  const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };
  return { logger, lines };
}

describe('ContinuationDispatcher', () => {
  it('queues one continuation job, naming the group only, per dispatch', () => {
    const pushed: RunJob[] = [];
    const dispatcher = new ContinuationDispatcher({ push: (job) => void pushed.push(job) }, recordingLogger().logger);
    dispatcher.dispatch(dispatchGroup('grp_aaaaaaaaaaaaaaaaaaaaaaaa', []));
    dispatcher.dispatch(dispatchGroup('grp_bbbbbbbbbbbbbbbbbbbbbbbb', []));
    expect(pushed).toEqual([
      { kind: 'continuation', groupId: 'grp_aaaaaaaaaaaaaaaaaaaaaaaa' },
      { kind: 'continuation', groupId: 'grp_bbbbbbbbbbbbbbbbbbbbbbbb' },
    ]);
  });

  it("logs each dispatch with the group, its transport and its continuation's event", () => {
    const { logger, lines } = recordingLogger();
    const dispatcher = new ContinuationDispatcher({ push: () => undefined }, logger);
    const group = dispatchGroup('grp_aaaaaaaaaaaaaaaaaaaaaaaa', [], { delivery: { transport: 'nats', eventId: 'evt_parent' }, continuation: { continuationEventId: 'evt_cont', state: 'claimed', claimedAt: now } });
    dispatcher.dispatch(group);
    expect(lines).toEqual([{ level: 'info', fields: { event: 'continuation', groupId: group.groupId, transport: 'nats', continuationEventId: 'evt_cont' }, message: 'continuation dispatched' }]);
  });

  it('takes deliveries only for the transports the transports table delivers continuations on (checked by tsc)', () => {
    // JSON, /async and cron continuations go to their status row only: a delivery for them would never be used.
    expectTypeOf<keyof ContinuationDeliveries>().toEqualTypeOf<'sse' | 'nats' | 'channel'>();
  });
});
