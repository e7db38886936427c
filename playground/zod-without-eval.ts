import { z } from 'zod';

/**
 * Imported first by `main.tsx`, before the AI SDK builds any schema. zod v4 probes whether it may
 * compile validators with `new Function("")`; under the page's CSP (no `unsafe-eval`) the probe
 * fails quietly but the browser still reports a CSP violation. `jitless` skips the probe and the
 * compiled validators, so zod only interprets (fast enough for stream chunks).
 */
z.config({ jitless: true });
