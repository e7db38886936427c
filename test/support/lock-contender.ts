/**
 * A process that contends for a data folder's lock on command, for tests of starters that
 * race: reads lines from stdin ("lock <folder>", "release") and answers one line each
 * ("won", "lost <message>", "released").
 */
import { createInterface } from 'node:readline';
import { lockDataFolder, type DataFolderLock } from '../../server/core/storage/data-folder-lock.js';

let held: DataFolderLock | undefined;
for await (const line of createInterface({ input: process.stdin })) {
  const [command, ...rest] = line.split(' ');
  if (command === 'lock') {
    try {
      held = await lockDataFolder(rest.join(' '));
      process.stdout.write('won\n');
    } catch (error) {
      process.stdout.write(`lost ${(error as Error).message}\n`);
    }
  } else if (command === 'release') {
    await held?.release();
    held = undefined;
    process.stdout.write('released\n');
  }
}
