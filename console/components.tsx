/** The pieces every view is made of: labelled fields with their violations, status badges, tables and polling. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { FieldViolation } from './api.ts';
import { ApiProblem } from './api.ts';

/** An element id for the field at a JSON pointer, e.g. `/spec/prefix` → `f-spec-prefix`. */
export const fieldID = (pointer: string) => `f${pointer.replace(/[^A-Za-z0-9]+/g, '-')}`;

interface FieldProps {
  readonly label: string;
  /** The JSON pointer of the request body field this input fills: where the API's violations point. */
  readonly pointer: string;
  readonly errors: ReadonlyMap<string, FieldViolation>;
  readonly hint?: string;
  /** The input's id, when two forms on a page name the same pointer. */
  readonly id?: string;
  readonly children: (props: {
    id: string;
    'aria-describedby'?: string;
    'aria-invalid'?: boolean;
  }) => ComponentChildren;
}

/** A labelled input with the violation the API (or its schema, checked here first) names for its pointer. */
export function Field({ label, pointer, errors, hint, children, ...rest }: FieldProps) {
  const id = rest.id ?? fieldID(pointer);
  const violation = violationAt(errors, pointer);
  const described = [hint === undefined ? undefined : `${id}-hint`, violation === undefined ? undefined : `${id}-error`]
    .filter((x) => x !== undefined)
    .join(' ');
  return (
    <div class={violation === undefined ? 'field' : 'field invalid'}>
      <label for={id}>{label}</label>
      {children({
        id,
        ...(described === '' ? {} : { 'aria-describedby': described }),
        ...(violation === undefined ? {} : { 'aria-invalid': true }),
      })}
      {hint === undefined ? null : (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {violation === undefined ? null : (
        <p id={`${id}-error`} class="error" data-pointer={pointer}>
          {violation.message}
        </p>
      )}
    </div>
  );
}

/** The violation of the field at `pointer` or of a part of it (`/spec/dnsNameservers/1` for a list input). */
function violationAt(errors: ReadonlyMap<string, FieldViolation>, pointer: string): FieldViolation | undefined {
  return errors.get(pointer) ?? [...errors.values()].find((v) => v.pointer.startsWith(`${pointer}/`));
}

const within = (shown: ReadonlySet<string> | undefined, pointer: string) =>
  [...(shown ?? [])].some((p) => pointer === p || pointer.startsWith(`${p}/`));

/** A problem that names no field the form shows (a 409, a 403, a rule about the whole request). */
export function ProblemNote({ problem, shown }: { problem: unknown; shown?: ReadonlySet<string> }) {
  if (problem === undefined) return null;
  if (problem instanceof ApiProblem) {
    const others = problem.errors.filter((e) => !within(shown, e.pointer));
    return (
      <div class="problem" role="alert">
        <strong>{problem.title}</strong> {problem.detail}
        {others.length === 0 ? null : (
          <ul>
            {others.map((e) => (
              <li key={e.pointer}>
                <code>{e.field}</code> {e.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div class="problem" role="alert">
      {problem instanceof Error ? problem.message : 'The request failed.'}
    </div>
  );
}

export interface ReadMetadata {
  readonly provisioningStatus: string;
  readonly healthStatus: string;
  readonly provisioningStatusDetail?: { readonly reason: string; readonly message: string };
  readonly healthStatusDetail?: { readonly reason: string; readonly message: string };
  readonly deletionTime?: string;
}

/** A long operation under way (a create, a rebuild, a delete): an indeterminate progress bar its label names. */
export function Busy({ label }: { label: string }) {
  return <progress class="busy" aria-label={label} />;
}

/** Provisioning statuses that mean the cloud is still at work. */
export const UNDER_WAY: ReadonlySet<string> = new Set(['provisioning', 'deprovisioning', 'pending', 'unknown']);

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z]/gi, '').toLowerCase()}`}>{value}</span>;
}

/** The provisioning and health conditions the API reports, reason and message. */
export function Conditions({ meta }: { meta: ReadMetadata }) {
  return (
    <dl class="conditions">
      <dt>Provisioning</dt>
      <dd>
        <Badge value={meta.provisioningStatus} />{' '}
        {meta.provisioningStatusDetail === undefined
          ? null
          : `${meta.provisioningStatusDetail.reason}: ${meta.provisioningStatusDetail.message}`}
      </dd>
      <dt>Health</dt>
      <dd>
        <Badge value={meta.healthStatus} />{' '}
        {meta.healthStatusDetail === undefined
          ? null
          : `${meta.healthStatusDetail.reason}: ${meta.healthStatusDetail.message}`}
      </dd>
      {meta.deletionTime === undefined ? null : (
        <>
          <dt>Deleting since</dt>
          <dd>{meta.deletionTime}</dd>
        </>
      )}
    </dl>
  );
}

/** How often a view re-reads what it shows: the console's "live" (the issue asks for at most 2 s). */
export const POLL_MS = 1000;

/**
 * Reads `load` now, every `POLL_MS` while the tab is visible, and on `refresh()`; answers the last value and the last
 * failure. A read that fails keeps the previous value on screen.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
): { value: T | undefined; problem: unknown; refresh: () => void } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const refresh = useCallback(() => {
    loadRef.current().then(
      (v) => {
        setValue(v);
        setProblem(undefined);
      },
      (e: unknown) => {
        setProblem(e);
      },
    );
  }, []);
  useEffect(() => {
    setValue(undefined);
    refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') refresh();
    }, POLL_MS);
    return () => {
      clearInterval(timer);
    };
  }, deps);
  return { value, problem, refresh };
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function Empty({ what }: { what: string }) {
  return <p class="empty">No {what} yet.</p>;
}

/** Delete with a second, explicit click: the first asks, the second deletes. */
export function DeleteButton({ name, onDelete }: { name: string; onDelete: () => Promise<unknown> }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<unknown>(undefined);
  if (!asking) {
    return (
      <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        aria-label={`Really delete ${name}`}
        onClick={() => {
          onDelete().then(() => setAsking(false), setProblem);
        }}
      >
        Really delete
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Keep
      </button>
      <ProblemNote problem={problem} />
    </span>
  );
}

/** An option list of resources by name, for a select. */
export function Options({ items }: { items: readonly { metadata: { id: string; name: string } }[] }) {
  return (
    <>
      {items.map((i) => (
        <option key={i.metadata.id} value={i.metadata.id}>
          {i.metadata.name}
        </option>
      ))}
    </>
  );
}
