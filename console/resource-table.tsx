/**
 * A kind's resources as every view lists them: the last read's problem, "No … yet", then a row per resource with its
 * name, the view's own columns, its status details and its actions, ending with delete.
 */
import type { ComponentChildren } from 'preact';
import { Badge, Conditions, DeleteButton, Empty, ProblemNote, type ReadMetadata } from './components.tsx';
import type { RegionUrl } from './api.ts';
import { useScope } from './context.ts';

interface Listed {
  readonly metadata: ReadMetadata & { readonly id: string; readonly name: string };
}

/** One of a view's own columns: its heading and what a row shows in it. */
export interface Column<T> {
  readonly title: string;
  readonly cell: (row: T) => ComponentChildren;
  /** A class for the cell (tests and styles find the status and phase cells by it). */
  readonly class?: string;
  /** Announced to screen readers when it changes, as a server's phase is. */
  readonly live?: boolean;
}

/** The provisioning status as a badge: most kinds' status column. */
export const statusColumn: Column<Listed> = {
  title: 'Status',
  class: 'status',
  cell: (row) => <Badge value={row.metadata.provisioningStatus} />,
};

export function ResourceTable<T extends Listed>(props: {
  /** The kind in words, plural: "No {what} yet." */
  what: string;
  listed: { value: readonly T[] | undefined; problem: unknown; refresh: () => void };
  columns: readonly Column<T>[];
  /** The REST path that deletes one (`DELETE`). */
  path: (row: T) => RegionUrl<'DELETE'>;
  /** Shown under the status details, e.g. the server monitor's observation. */
  more?: (row: T) => ComponentChildren;
  /** Actions before delete. */
  actions?: (row: T) => ComponentChildren;
}) {
  const { api } = useScope();
  const { what, listed, columns, path, more, actions } = props;
  return (
    <>
      <ProblemNote problem={listed.problem} />
      {listed.value?.length === 0 ? <Empty what={what} /> : null}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {columns.map((c) => (
              <th scope="col" key={c.title}>
                {c.title}
              </th>
            ))}
            <th scope="col">Conditions</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(listed.value ?? []).map((row) => (
            <tr key={row.metadata.id} data-name={row.metadata.name}>
              <td>{row.metadata.name}</td>
              {columns.map((c) => (
                <td key={c.title} class={c.class} aria-live={c.live === true ? 'polite' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
              <td>
                <Conditions meta={row.metadata} />
                {more?.(row)}
              </td>
              <td>
                {actions === undefined ? null : <>{actions(row)} </>}
                <DeleteButton name={row.metadata.name} onDelete={() => api('DELETE', path(row)).then(listed.refresh)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
