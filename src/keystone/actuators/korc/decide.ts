/**
 * The bundled K-ORC actuator's decision table, shared by User and Domain: from what one pass observed (the object,
 * its dependencies, what Keystone holds) to the one step to take next. Pure; every row has a stable id, and the
 * I/O (`actuator.ts`) repeats observe → decide → act until a row ends the pass, so a pass ends where K-ORC's would.
 */
import { KORC_WAITING_FOR_EXTERNAL, korcReasons } from '../../apis/korc.ts';

/** Where the Keystone resource was looked for, and the ids that matched. */
export type Lookup =
  /** status.id is recorded: the resource by that id (0 or 1 ids). */
  | { readonly by: 'statusId'; readonly ids: readonly string[] }
  /** Unmanaged `import.id` (0 or 1 ids). */
  | { readonly by: 'importId'; readonly ids: readonly string[] }
  /** Unmanaged `import.filter`. */
  | { readonly by: 'filter'; readonly ids: readonly string[] }
  /** Managed, nothing recorded yet: the exact name in its domain, so a crash after the create never duplicates. */
  | { readonly by: 'name'; readonly ids: readonly string[] }
  /** A dependency is not ready, so nothing could be looked up. */
  | { readonly by: 'none' };

/** A User's password: the Secret named by passwordRef, and the ref K-ORC last applied. */
export interface PasswordFacts {
  readonly ref: string | undefined;
  readonly applied: string | undefined;
  /** 'absent': no Secret; 'noKey': a Secret without a `password` key. */
  readonly secret: 'ok' | 'absent' | 'noKey';
}

export interface Facts {
  readonly deleting: boolean;
  readonly hasFinalizer: boolean;
  readonly policy: 'managed' | 'unmanaged';
  readonly onDelete: 'delete' | 'detach';
  /** Progressing is False with a terminal reason at the current generation: K-ORC leaves the object alone. */
  readonly terminalAtGeneration: boolean;
  /**
   * Progressing is False with Success at the current generation and no resync is due: K-ORC's ShouldReconcile
   * leaves the object alone too, so the pass its own status write wakes asks Keystone nothing.
   */
  readonly upToDateAtGeneration: boolean;
  /** The message of the first dependency (a Domain) that is not ready, if any. */
  readonly dependencyWait: string | undefined;
  readonly lookup: Lookup;
  /** Users only. */
  readonly password?: PasswordFacts | undefined;
}

export type Row =
  | 'D0-gone'
  | 'D1-delete'
  | 'D2-release'
  | 'T0-terminal-latched'
  | 'T1-up-to-date'
  | 'F0-add-finalizer'
  | 'W0-dependency'
  | 'S1-vanished-recreate'
  | 'S2-vanished-unmanaged'
  | 'I0-id-missing'
  | 'I1-waiting-external'
  | 'I2-ambiguous'
  | 'I3-adopt'
  | 'M0-adopt-by-name'
  | 'M1-password-secret'
  | 'M2-create'
  | 'P0-record-ref'
  | 'P1-password-secret'
  | 'P2-set-password'
  | 'A0-available';

type Action =
  | { readonly kind: 'none' }
  | { readonly kind: 'addFinalizer' }
  | { readonly kind: 'removeFinalizer' }
  | { readonly kind: 'delete'; readonly id: string }
  /** Record status.id (an import, or a managed resource found by name). */
  | { readonly kind: 'adopt'; readonly id: string }
  /** Forget a recorded id whose resource vanished; the next step creates it again. */
  | { readonly kind: 'forget' }
  | { readonly kind: 'create' }
  /** Record appliedPasswordRef without touching Keystone (the create already set the password, or an adoption). */
  | { readonly kind: 'recordPasswordRef'; readonly ref: string }
  | { readonly kind: 'setPassword'; readonly id: string; readonly ref: string }
  /** End the pass: the conditions to write, and whether to poll. */
  | { readonly kind: 'wait'; readonly message: string; readonly poll: boolean }
  | { readonly kind: 'terminal'; readonly reason: string; readonly message: string }
  | { readonly kind: 'available'; readonly id: string };

interface Decision {
  readonly row: Row;
  readonly action: Action;
}

export const MESSAGE_AMBIGUOUS_IMPORT = 'found more than one matching OpenStack resource during import';
const MESSAGE_IMPORT_ID_MISSING = 'resource does not exist in OpenStack';
const MESSAGE_VANISHED = 'resource has been deleted from OpenStack';

function passwordSecretMessage(ref: string, secret: 'absent' | 'noKey'): string {
  return secret === 'absent'
    ? `Waiting for Secret/${ref} to be created`
    : 'Password secret does not contain "password" key';
}

const d = (row: Row, action: Action): Decision => ({ row, action });

/** What the object alone says, before Keystone is asked anything. */
export type ObjectFacts = Pick<
  Facts,
  'deleting' | 'hasFinalizer' | 'terminalAtGeneration' | 'upToDateAtGeneration' | 'policy' | 'onDelete'
>;

/** Only a managed object owns its resource; an import, or onDelete detach, is left in Keystone. */
const owns = (f: ObjectFacts): boolean => f.policy === 'managed' && f.onDelete === 'delete';

/**
 * The rows the object alone decides (gone, released without a delete, latched or up to date, finalizer first),
 * in K-ORC's order (deletion, then ShouldReconcile, then the finalizer): a pass takes them
 * without looking the resource up in Keystone, since no lookup could change them. Undefined when the next step needs
 * the lookup.
 */
export function decideFromObject(f: ObjectFacts): Decision | undefined {
  if (f.deleting) {
    if (!f.hasFinalizer) return d('D0-gone', { kind: 'none' });
    return owns(f) ? undefined : d('D2-release', { kind: 'removeFinalizer' });
  }
  if (f.terminalAtGeneration) return d('T0-terminal-latched', { kind: 'none' });
  if (f.upToDateAtGeneration) return d('T1-up-to-date', { kind: 'none' });
  if (!f.hasFinalizer) return d('F0-add-finalizer', { kind: 'addFinalizer' });
  return undefined;
}

export function decide(f: Facts): Decision {
  const early = decideFromObject(f);
  if (early !== undefined) return early;
  const ids = f.lookup.by === 'none' ? [] : f.lookup.ids;
  const [first] = ids;
  if (f.deleting) {
    if (owns(f) && first !== undefined) return d('D1-delete', { kind: 'delete', id: first });
    return d('D2-release', { kind: 'removeFinalizer' });
  }
  if (f.dependencyWait !== undefined || f.lookup.by === 'none') {
    return d('W0-dependency', { kind: 'wait', message: f.dependencyWait ?? 'Waiting for dependencies', poll: false });
  }
  switch (f.lookup.by) {
    case 'statusId':
      if (first === undefined) {
        return f.policy === 'managed'
          ? d('S1-vanished-recreate', { kind: 'forget' })
          : d('S2-vanished-unmanaged', {
              kind: 'terminal',
              reason: korcReasons.unrecoverableError,
              message: MESSAGE_VANISHED,
            });
      }
      return synced(f, first);
    case 'importId':
      if (first === undefined) {
        return d('I0-id-missing', {
          kind: 'terminal',
          reason: korcReasons.unrecoverableError,
          message: MESSAGE_IMPORT_ID_MISSING,
        });
      }
      return d('I3-adopt', { kind: 'adopt', id: first });
    case 'filter':
      if (first === undefined) {
        return d('I1-waiting-external', { kind: 'wait', message: KORC_WAITING_FOR_EXTERNAL, poll: true });
      }
      if (ids.length > 1) {
        return d('I2-ambiguous', {
          kind: 'terminal',
          reason: korcReasons.invalidConfiguration,
          message: MESSAGE_AMBIGUOUS_IMPORT,
        });
      }
      return d('I3-adopt', { kind: 'adopt', id: first });
    case 'name': {
      if (first !== undefined) return d('M0-adopt-by-name', { kind: 'adopt', id: first });
      const pw = f.password;
      if (pw?.ref !== undefined && pw.secret !== 'ok') {
        return d('M1-password-secret', {
          kind: 'wait',
          message: passwordSecretMessage(pw.ref, pw.secret),
          poll: false,
        });
      }
      return d('M2-create', { kind: 'create' });
    }
  }
}

/** The resource exists and is recorded: apply the password when its ref moved, else report it available. */
function synced(f: Facts, id: string): Decision {
  const pw = f.password;
  // K-ORC applies spec changes to managed objects only: an import's password stays as Keystone has it.
  if (f.policy !== 'managed') return d('A0-available', { kind: 'available', id });
  if (pw?.ref === undefined || pw.ref === pw.applied) return d('A0-available', { kind: 'available', id });
  // An empty applied ref is the first pass after create or adoption: K-ORC records it without a PATCH.
  if (pw.applied === undefined || pw.applied === '') {
    return d('P0-record-ref', { kind: 'recordPasswordRef', ref: pw.ref });
  }
  if (pw.secret !== 'ok') {
    return d('P1-password-secret', { kind: 'wait', message: passwordSecretMessage(pw.ref, pw.secret), poll: false });
  }
  return d('P2-set-password', { kind: 'setPassword', id, ref: pw.ref });
}
