import { expect } from 'vitest';
import { InvalidRequestError } from '../errors.js';

/** The message of the InvalidRequestError `run` throws; fails the test if it throws nothing or something else. */
export function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as Error).message;
  }
  throw new Error('expected an InvalidRequestError');
}
