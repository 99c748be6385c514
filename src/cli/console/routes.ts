/**
 * The console on the API's own origin: the page at `/` and at every console path (`/servers`, `/servers/<id>`, …, so
 * a deep link loads it and its History-API router shows that page), its script and stylesheet under `/console/`.
 * Nothing here needs a token (the page holds none until the browser signs in); what the page shows comes from /api/
 * with it. Every other path, the API's included, keeps its own answer, a 404 problem document where nothing routes.
 */
import type { FastifyReply } from 'fastify';
import type { Api } from '../../region/http/routes/kit.ts';
import { consoleAssets, type Assets } from './assets.ts';
import { operatorRoutes, type OperatorDeps } from './operator.ts';
import { CONSOLE_PAGES } from './pages.ts';

/** The page may load only its own script and style, and talk only to its own origin. */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface ConsoleOptions {
  /** The operator API's store and metrics; without them the console has tenant views only. */
  readonly operator?: OperatorDeps;
  readonly assets?: () => Promise<Assets>;
}

export function mountConsole(app: Api, options: ConsoleOptions = {}): void {
  const assets = options.assets ?? consoleAssets();
  if (options.operator !== undefined) operatorRoutes(app, options.operator);
  const serve = (name: string) => async (_request: unknown, reply: FastifyReply) => {
    const asset = (await assets()).get(name);
    if (asset === undefined) {
      reply.callNotFound();
      return reply;
    }
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .type(asset.contentType)
      .send(asset.body);
  };
  app.get('/', { schema: { hide: true } }, serve('index.html'));
  for (const { path } of CONSOLE_PAGES) {
    app.get(path, { schema: { hide: true } }, serve('index.html'));
    app.get(`${path}/*`, { schema: { hide: true } }, serve('index.html'));
  }
  app.get('/console/app.js', { schema: { hide: true } }, serve('app.js'));
  app.get('/console/app.css', { schema: { hide: true } }, serve('app.css'));
}
