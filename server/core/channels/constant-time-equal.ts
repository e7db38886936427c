import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets without leaking, through timing, where they differ or how long
 * the expected one is: both sides are hashed first, so `timingSafeEqual` always sees
 * two 32-byte buffers.
 */
export function constantTimeEqual(received: string, expected: string): boolean {
  const receivedDigest = createHash('sha256').update(received, 'utf8').digest();
  const expectedDigest = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(receivedDigest, expectedDigest);
}
