/**
 * The requests the control plane makes of its Kubernetes API, counted at its client (`up`'s `runtimeClient` hook):
 * every call of the Client interface is one request to a kube-apiserver (KubernetesClient), by verb and kind, as
 * `apiserver_request_total` counts them there (a status write is `update servers/status`). A watch counts when it
 * is opened. Used by test/up/openstack-calls.test.ts to hold the kube-apiserver bench's requests per server on a
 * manual clock, where they are exact.
 */
import type { Client } from '../src/kube/client.ts';
import type { ResourceType } from '../src/kube/resource-type.ts';

const READS = new Set(['get', 'list']);
const WRITES = new Set(['create', 'update', 'patch', 'apply', 'delete']);

export class KubeClientCalls {
  #counts = new Map<string, number>();

  /** `client`, counting every request made through it. */
  wrap(client: Client): Client {
    const count = (verb: string, type: ResourceType, options?: unknown) => {
      const status = (options as { subresource?: string } | undefined)?.subresource === 'status' ? '/status' : '';
      const key = `${verb} ${type.plural}${status}`;
      this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    };
    return {
      get: (type, namespace, name) => {
        count('get', type);
        return client.get(type, namespace, name);
      },
      list: (type, options) => {
        count('list', type);
        return client.list(type, options);
      },
      watch: (type, options) => {
        count('watch', type);
        return client.watch(type, options);
      },
      create: (type, object, options) => {
        count('create', type, options);
        return client.create(type, object, options);
      },
      update: (type, object, options) => {
        count('update', type, options);
        return client.update(type, object, options);
      },
      patch: (type, namespace, name, patch, options) => {
        count('patch', type, options);
        return client.patch(type, namespace, name, patch, options);
      },
      apply: (type, object, options) => {
        count('apply', type, options);
        return client.apply(type, object, options);
      },
      delete: (type, namespace, name, options) => {
        count('delete', type);
        return client.delete(type, namespace, name, options);
      },
      servedVersions: (group, plural) => client.servedVersions(group, plural),
    };
  }

  /** The counts since the last take, by `verb kind`; resets them. */
  take(): Map<string, number> {
    const counts = this.#counts;
    this.#counts = new Map();
    return counts;
  }
}

/** Reads (get, list), writes and watches in `counts`. */
export function requestKinds(counts: ReadonlyMap<string, number>): { reads: number; writes: number; watches: number } {
  let reads = 0;
  let writes = 0;
  let watches = 0;
  for (const [key, n] of counts) {
    const verb = key.split(' ')[0] ?? '';
    if (READS.has(verb)) reads += n;
    else if (WRITES.has(verb)) writes += n;
    else if (verb === 'watch') watches += n;
  }
  return { reads, writes, watches };
}
