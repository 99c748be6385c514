/**
 * What api.ts's typing catches, checked by the compiler (`npm run typecheck` compiles console/): each
 * `@ts-expect-error` below must be an error, or the typecheck fails. Nothing here runs.
 */
import type { Api } from './api.ts';

export async function typedCalls(api: Api, id: string): Promise<void> {
  // The answer is the route's success body, from the document.
  const network = await api('GET', `/api/v2/networks/${id}`);
  network.spec.dnsNameservers satisfies string[];
  const output = await api('GET', `/api/v2/servers/${id}/consoleoutput?length=100`);
  output.contents satisfies string;
  const servers = await api('GET', `/api/v2/servers?organizationID=${id}`);
  servers.map((s) => s.status.networkId) satisfies string[];
  // An accepted delete answers no body.
  await (api('DELETE', `/api/v2/networks/${id}`) satisfies Promise<undefined>);
  await api('POST', '/api/v2/networks', {
    metadata: { name: 'n' },
    spec: { organizationId: 'o', projectId: 'p', regionId: 'r', prefix: '10.0.0.0/24', dnsNameservers: [] },
  });

  // @ts-expect-error: a path the document does not have
  await api('GET', '/api/v2/netwerks');
  // @ts-expect-error: a method the path does not have (images are listed, not deleted, on v2)
  await api('DELETE', `/api/v2/regions/${id}/images`);
  // @ts-expect-error: a body of the wrong shape (prefix is a string)
  await api('POST', '/api/v2/networks', { metadata: { name: 'n' }, spec: { prefix: 24 } });
  // @ts-expect-error: the body the route requires, missing
  await api('POST', '/api/v2/networks');
  // @ts-expect-error: a body the route does not take
  await api('POST', `/api/v2/servers/${id}/start`, { force: true });
  // @ts-expect-error: a route that answers an event stream, not JSON (live.ts reads it with fetch)
  await api('GET', '/api/v2/watch?collection=servers');
  // @ts-expect-error: an answer read as what it is not
  (await api('GET', `/api/v2/networks/${id}`)).spec.prefix satisfies number;
}
