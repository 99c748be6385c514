/**
 * Live lists from the API's watch stream (`GET /api/v2/watch`, Server-Sent Events; docs/adr/0045-console-live-stream.md):
 * one stream per view, carrying every collection the view shows, instead of each view polling each list. A
 * `snapshot` event replaces a collection's list, a `change` event adds, replaces or removes one object; when the
 * stream ends or fails, the hook reconnects (after a pause that grows to 10 s) and starts again from a snapshot.
 * The stream is read with fetch, not EventSource, because it carries the bearer token in a header.
 */
import { createParser } from 'eventsource-parser';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { LoadBalancerV2Read } from '../src/region/http/schemas/load-balancer.ts';
import type { NetworkV2Read } from '../src/region/http/schemas/network.ts';
import type { SecurityGroupV2Read } from '../src/region/http/schemas/security-group.ts';
import type { ServerV2Read } from '../src/region/http/schemas/server.ts';
import type { VolumeV2Read } from '../src/region/http/schemas/inventory.ts';
import { ApiProblem, query } from './api.ts';
import { useScope } from './context.ts';

/** What each collection's objects read as (the REST API's read shapes). */
export interface LiveKinds {
  networks: NetworkV2Read;
  securitygroups: SecurityGroupV2Read;
  servers: ServerV2Read;
  loadbalancers: LoadBalancerV2Read;
  volumes: VolumeV2Read;
}

export type Collection = keyof LiveKinds;

/** A live list, in the shape the views' tables take (`refresh` is a no-op: the stream brings every change). */
export interface Listed<T> {
  readonly value: readonly T[] | undefined;
  readonly problem: unknown;
  readonly refresh: () => void;
}

type Lists = { readonly [C in Collection]?: ReadonlyMap<string, LiveKinds[C]> };

interface Read {
  readonly metadata: { readonly id: string; readonly creationTime?: string };
}

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 10_000;

/** The state of one collection after one event: pure, so the unit tests drive it without a browser. */
export function applyEvent(lists: Lists, event: string, data: string): Lists {
  if (event === 'snapshot') {
    const { collection, items } = JSON.parse(data) as { collection: Collection; items: Read[] };
    return { ...lists, [collection]: new Map(items.map((o) => [o.metadata.id, o])) };
  }
  if (event === 'change') {
    const { collection, type, object } = JSON.parse(data) as { collection: Collection; type: string; object: Read };
    const next = new Map<string, Read>(lists[collection] as ReadonlyMap<string, Read> | undefined);
    if (type === 'DELETED') next.delete(object.metadata.id);
    else next.set(object.metadata.id, object);
    return { ...lists, [collection]: next };
  }
  return lists;
}

/** Oldest first, as the list routes answer. */
const byCreation = (a: Read, b: Read) => {
  const [x, y] = [a.metadata.creationTime ?? '', b.metadata.creationTime ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
};

const NOOP = () => undefined;

/**
 * The named collections of the signed-in project, live. Also answers `changes`, a count of the changes seen, for a
 * view that reloads something else (a server's Events) when its object changes, and `connected`.
 */
export function useLive<const C extends Collection>(
  ...collections: C[]
): { [K in C]: Listed<LiveKinds[K]> } & { readonly changes: number; readonly connected: boolean } {
  const { token, organizationID, projectID } = useScope();
  const [lists, setLists] = useState<Lists>({});
  const [problem, setProblem] = useState<unknown>(undefined);
  const [changes, setChanges] = useState(0);
  const [connected, setConnected] = useState(false);
  const key = [...collections].sort().join(',');
  useEffect(() => {
    const abort = new AbortController();
    let wait = RETRY_MIN_MS;
    setLists({});
    const connect = async () => {
      const search = query({ organizationID, projectID, collection: key });
      const response = await fetch(`/api/v2/watch${search}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      if (!response.ok || response.body === null) {
        const body = (await response.json().catch(() => ({}))) as { title?: string; detail?: string };
        throw new ApiProblem(response.status, body.title ?? response.statusText, body.detail ?? '', []);
      }
      setConnected(true);
      setProblem(undefined);
      wait = RETRY_MIN_MS;
      const parser = createParser({
        onEvent: ({ event, data }) => {
          setLists((current) => applyEvent(current, event ?? 'message', data));
          if (event === 'change') setChanges((n) => n + 1);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
    };
    /** Read through a function: the loop's condition would otherwise narrow it to false for good. */
    const stopped = () => abort.signal.aborted;
    const loop = async () => {
      while (!stopped()) {
        try {
          await connect();
        } catch (error) {
          if (stopped()) return;
          setProblem(error);
        }
        setConnected(false);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
    };
    void loop();
    return () => {
      abort.abort();
    };
  }, [token, organizationID, projectID, key]);
  return useMemo(() => {
    const answer: Record<string, unknown> = { changes, connected };
    for (const c of collections) {
      const map = lists[c] as ReadonlyMap<string, Read> | undefined;
      answer[c] = { value: map === undefined ? undefined : [...map.values()].sort(byCreation), problem, refresh: NOOP };
    }
    return answer as { [K in C]: Listed<LiveKinds[K]> } & { changes: number; connected: boolean };
  }, [lists, problem, changes, connected, key]);
}
