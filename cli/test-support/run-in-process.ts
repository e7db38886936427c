import { buildProgram } from '../index.js';
import type { TestContext } from './test-context.js';

/** Parses `args` as `harness <args>` in this process, against the given context. */
export async function runInProcess(context: TestContext, args: string[]): Promise<void> {
  await buildProgram(context).parseAsync(args, { from: 'user' });
}
