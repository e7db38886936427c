/**
 * A memory tool call that was refused: a bound of the scope (`full`), a note too long or
 * empty (`invalid-input`), or an id that names no note of the scope (`not-found`). The
 * message is for the model, which gets it as the tool's error, and says what to do instead.
 */
export class MemoryToolError extends Error {
  constructor(
    readonly kind: 'full' | 'invalid-input' | 'not-found',
    message: string,
  ) {
    super(message);
    this.name = 'MemoryToolError';
  }
}
