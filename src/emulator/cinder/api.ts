/**
 * What Cinder's route modules share: state, routing with authentication and the volume microversion (3.0 unless
 * `OpenStack-API-Version: volume 3.N` asks for more, up to Zed's 3.70), Cinder's faults and `*_links` paging.
 */
import type { AuthContext } from '../auth.ts';
import type { ServiceContext } from '../context.ts';
import { novaFault } from '../faults.ts';
import { EmuFault, withHeaders, type EmuRequest, type EmuResponse, type Method } from '../http.ts';
import type { JsonObject } from '../json.ts';
import type { CinderLater, CinderState } from './state.ts';

export const PREFIX = '/volume/v3';
export const MAX_MINOR = 70;
/** The emulator's one backend: `devcloud@fake#fake`, as on the dev cloud. */
export const BACKEND = 'fake';

interface CinderCall {
  readonly auth: AuthContext;
  /** The minor version of 3.x the request asked for. */
  readonly minor: number;
}

type CinderHandler = (req: EmuRequest, call: CinderCall) => EmuResponse | Promise<EmuResponse>;

export interface CinderApi {
  readonly state: CinderState;
  readonly ctx: ServiceContext;
  /** Registers an authenticated route below `/volume/v3/{project_id}`; `minMinor` hides it from older requests. */
  readonly route: (method: Method, path: string, handler: CinderHandler, minMinor?: number) => void;
  /** Finishes a transition after its named delay if the volume is still on the course it is on now. */
  readonly later: CinderLater;
}

export const notFound = (message: string): EmuFault => novaFault(404, message);
export const badRequest = (message: string): EmuFault => novaFault(400, message);
export const forbidden = (rule: string): EmuFault => novaFault(403, `Policy doesn't allow ${rule} to be performed.`);

function minorOf(req: EmuRequest): number {
  const header = req.headers['openstack-api-version'];
  const match = typeof header === 'string' ? /volume\s+(\d+)\.(\d+|latest)/i.exec(header) : null;
  if (!match) return 0;
  if (match[2] === 'latest') return MAX_MINOR;
  const minor = Number(match[2]);
  if (match[1] !== '3' || minor > MAX_MINOR) {
    throw novaFault(
      406,
      `Version ${match[1] ?? ''}.${match[2] ?? ''} is not supported by the API. Minimum is 3.0 and maximum is 3.${String(MAX_MINOR)}.`,
    );
  }
  return minor;
}

export function cinderRoute(ctx: ServiceContext): CinderApi['route'] {
  return (method, path, handler, minMinor = 0) => {
    ctx.router.add(method, `${PREFIX}/{project_id}${path}`, (req) => {
      let headers: Record<string, string> = { 'OpenStack-API-Version': 'volume 3.0', Vary: 'OpenStack-API-Version' };
      return withHeaders(
        () => headers,
        () => {
          const minor = minorOf(req);
          headers = { 'OpenStack-API-Version': `volume 3.${String(minor)}`, Vary: 'OpenStack-API-Version' };
          const auth = ctx.authenticate(req, (m) => novaFault(401, m));
          if (minor < minMinor) throw notFound('The resource could not be found.');
          return handler(req, { auth, minor });
        },
      );
    });
  };
}

/**
 * One page of `rows` (already filtered and sorted): after `marker`, at most `limit`, with a next link under
 * `linksKey` when the page is full, as Cinder sends it.
 */
export function page(
  ctx: ServiceContext,
  req: EmuRequest,
  rows: readonly { readonly id: string; readonly body: JsonObject }[],
  itemsKey: string,
  linksKey: string,
): EmuResponse {
  const marker = req.query.get('marker');
  const limitText = req.query.get('limit');
  const limit = limitText === null ? 1000 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest('limit param must be an integer');
  let start = 0;
  if (marker !== null) {
    const at = rows.findIndex((r) => r.id === marker);
    if (at < 0) throw notFound(`Marker ${marker} could not be found.`);
    start = at + 1;
  }
  const slice = rows.slice(start, start + limit);
  const body: JsonObject = { [itemsKey]: slice.map((r) => r.body) };
  const last = slice.at(-1);
  if (limitText !== null && last !== undefined && slice.length === limit) {
    const query = new URLSearchParams(req.query);
    query.set('marker', last.id);
    body[linksKey] = [{ rel: 'next', href: `${ctx.origin()}${req.path}?${query.toString()}` }];
  }
  return { status: 200, body };
}
