import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';
import { errorResponses } from '../openapi/error-responses.js';
import { loadPlaygroundAssets, type PlaygroundAsset } from './playground-assets.js';
import { type PlaygroundApiRouteParts, registerPlaygroundApiRoutes } from './playground-api-routes.js';
import { playgroundHeaders } from './playground-headers.js';

export interface PlaygroundRouteOptions {
  /** `HARNESS_PLAYGROUND`: false registers nothing, so `/playground` is a 404 like any unknown path. */
  enabled: boolean;
  /** The built page (default: `dist/playground`, read once). */
  assets?: Map<string, PlaygroundAsset>;
}

const tags = ['playground'];
const notBuilt = 'The playground is not built: run `npm run build`.';

const fileParams = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', maxLength: 100, description: 'A file of the built page, such as `playground.js`.' } },
} as const;

function fileResponse(description: string) {
  return { description, content: { 'text/html': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } };
}

/**
 * The web playground (`docs/playground.md`): the page and its files, public like any static
 * page (they hold no data), and the few account-service reads it needs, behind the bearer.
 */
export function registerPlaygroundRoutes(app: FastifyInstance, core: PlaygroundApiRouteParts, options: PlaygroundRouteOptions): void {
  if (!options.enabled) return;
  const assets = options.assets ?? loadPlaygroundAssets();

  const send = (name: string) => {
    const asset = assets.get(name);
    if (!asset) throw new NotFoundError(assets.size === 0 ? notBuilt : `No playground file "${name}".`);
    return asset;
  };

  app.get(
    '/playground',
    {
      schema: {
        summary: 'The web playground',
        description: 'An HTML page (React and the AI SDK\'s `useChat`) that signs in with an account secret, chats with an agent and manages cron jobs. Served only when `HARNESS_PLAYGROUND` is on; sent with a strict Content-Security-Policy.',
        tags,
        response: { 200: fileResponse('The page.'), ...errorResponses(404) },
      },
    },
    async (_request, reply) => {
      const page = send('index.html');
      return reply.headers(playgroundHeaders).type(page.contentType).send(page.body);
    },
  );

  // A typed or bookmarked trailing slash finds the page at its one address (the query kept; the
  // browser keeps the hash, which holds the conversation).
  app.get(
    '/playground/',
    { schema: { summary: 'The web playground, with a trailing slash', description: 'Redirects to `/playground`.', tags, response: { 301: { description: 'Moved to `/playground`.', type: 'null' } } } },
    async (request, reply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(`/playground${query >= 0 ? request.url.slice(query) : ''}`, 301);
    },
  );

  app.get<{ Params: { file: string } }>(
    '/playground/:file',
    { schema: { summary: 'A file of the web playground', tags, params: fileParams, response: { 200: fileResponse('The script or stylesheet.'), ...errorResponses(400, 404) } } },
    async (request, reply) => {
      // index.html is served at /playground only, so the page has one address.
      if (request.params.file === 'index.html') throw new NotFoundError(`No playground file "${request.params.file}".`);
      const asset = send(request.params.file);
      return reply.headers(playgroundHeaders).type(asset.contentType).send(asset.body);
    },
  );

  registerPlaygroundApiRoutes(app, core);
}
