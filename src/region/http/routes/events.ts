/**
 * `GET /api/v2/<collection>/{id}/events`: the Events recorded about one of the tenant's objects
 * (docs/adr/0040-operability-signals.md), for the console's detail pages and anyone else. Authorised exactly as the
 * object's own GET (absent and out of scope alike are 404), so a tenant reads only its objects' Events. A failure's
 * Warning carries the provider's operator detail (the cloud's words, request ids): that message is replaced with a
 * fixed sentence, as every tenant-facing failure text is (docs/architecture.md §Dispositions, not exceptions).
 */
import Type from 'typebox';
import { conditionReasons } from '../../apis/index.ts';
import { COLLECTIONS, TENANT_KINDS } from '../kinds.ts';
import { principalOf } from '../principal.ts';
import type { RecordedEvent } from '../repository.ts';
import { EventRead } from '../schemas/event.ts';
import { doc, IDParams, type Api, type RouteDeps } from './kit.ts';

const TAGS: Readonly<Record<string, string>> = {
  networks: 'Networks',
  securitygroups: 'Security groups',
  servers: 'Servers',
  loadbalancers: 'Load balancers',
  volumes: 'Volumes',
};

/** Reasons whose message is a fixed, tenant-facing text: the Available condition's, and the server create retries'. */
const TENANT_WORDED = new Set<string>([
  ...Object.values(conditionReasons),
  'ProviderCreateRetrying',
  'ProviderCreateRetryReady',
  'ProviderCreateFailed',
]);

export const OPERATOR_DETAIL = "the provider's detail of this failure is in the operator's logs";

function eventRead(event: RecordedEvent): EventRead {
  const first = event.firstTimestamp ?? event.metadata.creationTimestamp ?? '';
  return {
    type: event.type === 'Warning' ? 'Warning' : 'Normal',
    reason: event.reason ?? '',
    message: TENANT_WORDED.has(event.reason ?? '') ? (event.message ?? '') : OPERATOR_DETAIL,
    count: event.count ?? 1,
    firstTimestamp: first,
    lastTimestamp: event.lastTimestamp ?? first,
  };
}

export function eventRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  for (const collection of COLLECTIONS) {
    const kind = TENANT_KINDS[collection];
    app.get(
      `/api/v2/${collection}/:${kind.param}/events`,
      {
        schema: doc(
          TAGS[collection] ?? collection,
          `List a ${kind.what}'s Events`,
          { params: IDParams(kind.param) },
          { 200: Type.Array(EventRead) },
        ),
      },
      async (request) => {
        const id = request.params[kind.param] ?? '';
        const object = await repo.get(kind.type, principalOf(request), id, kind.what);
        return (await repo.eventsAbout(object)).map(eventRead);
      },
    );
  }
}
