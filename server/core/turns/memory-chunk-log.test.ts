import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { chunkEventId, parseChunkEventId } from './chunk-log.js';
import { MemoryChunkLog } from './memory-chunk-log.js';

const conversation = { accountId: 'acc_1', agentId: 'helper', conversationKey: 'talk' };
const turn = (turnId: string) => ({ ...conversation, turnId });
const text = (delta: string): UIMessageChunk => ({ type: 'text-delta', id: 't', delta });
const finish: UIMessageChunk = { type: 'finish' };

async function collect(iterable: AsyncIterable<{ index: number; chunk: UIMessageChunk }>): Promise<number[]> {
  const indexes: number[] = [];
  for await (const logged of iterable) indexes.push(logged.index);
  return indexes;
}

describe('MemoryChunkLog', () => {
  it('reads a turn after a position, then follows it live until its finish', async () => {
    const log = new MemoryChunkLog();
    expect(log.append(turn('turn_a'), { type: 'start' })).toBe(0);
    expect(log.append(turn('turn_a'), text('one'))).toBe(1);
    expect(await log.turnState(turn('turn_a'))).toEqual({ turnId: 'turn_a', lastIndex: 1, finished: false });
    const reading = collect(log.readTurn(turn('turn_a'), 0));
    log.append(turn('turn_a'), text('two'));
    log.append(turn('turn_a'), finish);
    expect(await reading).toEqual([1, 2, 3]);
    expect(await log.latestTurn(conversation)).toEqual({ turnId: 'turn_a', lastIndex: 3, finished: true });
    expect(await collect(log.readTurn(turn('turn_a'), 3))).toEqual([]);
  });

  it("keeps conversations apart: a turn id names nothing in another account's conversation", async () => {
    const log = new MemoryChunkLog();
    log.append(turn('turn_a'), { type: 'start' });
    const other = { ...conversation, accountId: 'acc_2', turnId: 'turn_a' };
    expect(await log.turnState(other)).toBeUndefined();
    expect(await collect(log.readTurn(other, -1))).toEqual([]);
    expect(await log.latestTurn({ ...conversation, accountId: 'acc_2' })).toBeUndefined();
  });

  it('forgets the oldest turns beyond its bounds, and ends their readers', async () => {
    const log = new MemoryChunkLog({ maxTurns: 2 });
    log.append(turn('turn_1'), { type: 'start' });
    const reading = collect(log.readTurn(turn('turn_1'), -1));
    log.append(turn('turn_2'), { type: 'start' });
    log.append(turn('turn_3'), { type: 'start' });
    expect(await reading).toEqual([0]);
    expect(await log.turnState(turn('turn_1'))).toBeUndefined();
    expect(await log.latestTurn(conversation)).toMatchObject({ turnId: 'turn_3' });
  });

  it('ends a reading when its signal aborts', async () => {
    const log = new MemoryChunkLog();
    log.append(turn('turn_a'), { type: 'start' });
    const abort = new AbortController();
    const reading = collect(log.readTurn(turn('turn_a'), -1, { signal: abort.signal }));
    abort.abort();
    expect(await reading).toEqual([0]);
  });
});

describe('chunk event ids', () => {
  it('name the turn and the position, and parse back', () => {
    expect(parseChunkEventId(chunkEventId('turn_3f-9', 12))).toEqual({ turnId: 'turn_3f-9', index: 12 });
    expect(parseChunkEventId('not an id')).toBeUndefined();
    expect(parseChunkEventId('turn.x:1')).toBeUndefined();
  });

  it('forgets the heaviest account’s turns first: one account writing many or huge streams does not push out another’s recent turn', async () => {
    const victim = { accountId: 'acc_victim', agentId: 'helper', conversationKey: 'talk', turnId: 'turn_v' };
    const attacker = (turnId: string) => ({ accountId: 'acc_attacker', agentId: 'helper', conversationKey: 'flood', turnId });
    const many = new MemoryChunkLog({ maxTurns: 10 });
    many.append(victim, { type: 'start' });
    for (let index = 0; index < 50; index += 1) many.append(attacker(`turn_${index}`), { type: 'start' });
    expect(await many.turnState(victim)).toEqual({ turnId: 'turn_v', lastIndex: 0, finished: false });
    expect(await many.turnState(attacker('turn_0'))).toBeUndefined();
    expect(await many.turnState(attacker('turn_49'))).toMatchObject({ lastIndex: 0 });

    const huge = new MemoryChunkLog({ maxChunks: 100 });
    huge.append(victim, { type: 'start' });
    const flood = attacker('turn_huge');
    for (let index = 0; index < 500; index += 1) expect(huge.append(flood, text('x'))).toBe(index);
    expect(await huge.turnState(victim)).toMatchObject({ lastIndex: 0 });
    // The flooding turn itself was forgotten; its later chunks keep counting and are not kept.
    expect(await huge.turnState(flood)).toBeUndefined();
    expect(huge.append({ ...flood }, finish)).toBe(500);
    expect(await huge.turnState(flood)).toBeUndefined();
  });
});
