/**
 * Garbage collection as kube-controller-manager does it: dependents whose owners are all gone are deleted
 * (background), owners deleted in the foreground wait for their blocking dependents, orphaning strips the owner
 * reference, and a terminating namespace is emptied before it goes. It runs off the change log, so it also acts on
 * deletions made by other processes sharing the store file.
 */
import type { KubeObject } from '../object.ts';
import type { Db } from './db.ts';
import type { Change, Hub } from './watch.ts';
import { FOREGROUND, ORPHAN, type Writer } from './write.ts';

/**
 * Whether a change may alter what the collector decides from the object's owner references: a new object, or
 * references that differ. A status write leaves them as they were, and its owners' fate is not its own to change.
 * (Worked out when the change was logged, so a status write's old state is never parsed here.)
 */
const refsChanged = (c: Change): boolean => c.refsChanged;

export class GarbageCollector {
  readonly #dependents = new Set<string>();
  readonly #owners = new Set<string>();
  readonly #namespaces = new Set<string>();
  #scheduled = false;
  #stopped = false;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly db: Db,
    private readonly writer: Writer,
    hub: Hub,
    private readonly onError: (error: unknown) => void,
  ) {
    this.#unsubscribe = hub.add({
      change: (c) => {
        this.#observe(c);
      },
      gone: () => {
        this.#sweep();
      },
    });
    this.#sweep();
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe();
  }

  #observe(c: Change): void {
    const m = c.object.metadata;
    const uid = m.uid ?? '';
    if (c.type === 'DELETED') {
      for (const dep of this.db.dependents(uid)) this.#dependents.add(dep);
      if (m.namespace) this.#namespaces.add(m.namespace);
    } else {
      if ((m.ownerReferences ?? []).length > 0 && refsChanged(c)) this.#dependents.add(uid);
      const f = m.finalizers ?? [];
      if (m.deletionTimestamp !== undefined && (f.includes(FOREGROUND) || f.includes(ORPHAN))) this.#owners.add(uid);
      if (c.resource === 'namespaces' && m.deletionTimestamp !== undefined) this.#namespaces.add(m.name);
    }
    // A dependent that went, or stopped naming an owner, may unblock an owner waiting in the foreground.
    if (c.type === 'DELETED' || refsChanged(c)) {
      for (const ref of [...(m.ownerReferences ?? []), ...(c.old?.metadata.ownerReferences ?? [])]) {
        this.#owners.add(ref.uid);
      }
    }
    this.#schedule();
  }

  /** Everything that may need work, found from the tables: at start, and after falling behind the change log. */
  #sweep(): void {
    for (const uid of this.db.danglingDependents()) this.#dependents.add(uid);
    for (const r of this.db.deleting()) {
      if (r.resource === 'namespaces') this.#namespaces.add(r.name);
      else this.#owners.add(r.uid);
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#run();
    });
  }

  #run(): void {
    while (!this.#stopped && this.#dependents.size + this.#owners.size + this.#namespaces.size > 0) {
      for (const [set, work] of [
        [
          this.#dependents,
          (k: string) => {
            this.#dependent(k);
          },
        ],
        [
          this.#owners,
          (k: string) => {
            this.#owner(k);
          },
        ],
        [
          this.#namespaces,
          (k: string) => {
            this.#namespace(k);
          },
        ],
      ] as const) {
        for (const key of [...set]) {
          set.delete(key);
          try {
            work(key);
          } catch (error) {
            this.onError(error);
          }
        }
      }
    }
  }

  #get(uid: string): KubeObject | undefined {
    const row = this.db.byUid(uid);
    return row === undefined ? undefined : (JSON.parse(row.body) as KubeObject);
  }

  #dependent(uid: string): void {
    const obj = this.#get(uid);
    const refs = obj?.metadata.ownerReferences ?? [];
    if (obj === undefined || refs.length === 0 || obj.metadata.deletionTimestamp !== undefined) return;
    const gone: string[] = [];
    const waiting: boolean[] = [];
    const solid: string[] = [];
    for (const ref of refs) {
      const owner = this.#get(ref.uid);
      if (owner === undefined) gone.push(ref.uid);
      else if (
        owner.metadata.deletionTimestamp !== undefined &&
        (owner.metadata.finalizers ?? []).includes(FOREGROUND)
      ) {
        waiting.push(ref.blockOwnerDeletion === true);
        gone.push(ref.uid);
      } else solid.push(ref.uid);
    }
    if (gone.length === 0) return;
    if (solid.length === 0) {
      this.writer.deleteUid(uid, waiting.some((b) => b) ? 'Foreground' : 'Background');
    } else {
      this.writer.editMetadata(uid, (meta) => ({
        ...meta,
        ownerReferences: (meta.ownerReferences ?? []).filter((r) => solid.includes(r.uid)),
      }));
    }
  }

  #owner(uid: string): void {
    const owner = this.#get(uid);
    if (owner?.metadata.deletionTimestamp === undefined) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const dependents = this.db.dependents(uid);
    if (finalizers.includes(ORPHAN)) {
      for (const dep of dependents) {
        this.writer.editMetadata(dep, (meta) => ({
          ...meta,
          ownerReferences: (meta.ownerReferences ?? []).filter((r) => r.uid !== uid),
        }));
      }
      this.writer.editMetadata(uid, (meta) => ({
        ...meta,
        finalizers: (meta.finalizers ?? []).filter((f) => f !== ORPHAN),
      }));
      return;
    }
    if (!finalizers.includes(FOREGROUND)) return;
    for (const dep of dependents) this.#dependent(dep);
    const blocking = dependents.some((dep) =>
      (this.#get(dep)?.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    if (!blocking) {
      this.writer.editMetadata(uid, (meta) => ({
        ...meta,
        finalizers: (meta.finalizers ?? []).filter((f) => f !== FOREGROUND),
      }));
    }
  }

  #namespace(name: string): void {
    const row = this.db.get('namespaces', '', name);
    if (row === undefined || (JSON.parse(row.body) as KubeObject).metadata.deletionTimestamp === undefined) return;
    for (const r of this.db.inNamespace(name)) {
      if (!r.body.includes('"deletionTimestamp"')) this.writer.deleteUid(r.uid, 'Background');
    }
    this.writer.finishNamespace(name);
  }
}
