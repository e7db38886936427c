import type { ServerResponse } from 'node:http';

/** Resolves once `response` drains or closes, whichever comes first. */
export function writable(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}
