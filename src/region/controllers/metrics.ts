/**
 * Counts the decision row each region reconcile pass took (docs/architecture.md §Decide, then act: logged and counted).
 */
import { Counter, type Registry } from 'prom-client';
import type { ControllerOptions } from '../../runtime/controller.ts';

export type Phase = 'provision' | 'deprovision';

/** Told the row of every pass that reached a verdict. */
export type RowObserver = (phase: Phase, row: string) => void;

export const ignoreRows: RowObserver = () => undefined;

/**
 * What every `register<Kind>Controller(manager, lookup, options)` takes: the runtime's options and who is told the
 * rows. A controller registers the indexes its own watches and cascades read, so registering it is one call.
 */
export interface RegistrationOptions {
  readonly controller?: ControllerOptions | undefined;
  readonly observe?: RowObserver | undefined;
}

/** One counter on `registry`; the returned function gives each controller its observer. */
export function rowCounter(registry: Registry): (controller: string) => RowObserver {
  const rows = new Counter({
    name: 'openregion_region_reconcile_rows_total',
    help: 'Region reconcile passes by the decision row they took',
    labelNames: ['controller', 'phase', 'row'],
    registers: [registry],
  });
  return (controller) => (phase, row) => {
    rows.inc({ controller, phase, row });
  };
}
