/**
 * Counts the decision row each KeystoneUser pass took, per step (docs/architecture.md §Decide, then act: logged and
 * counted).
 */
import { Counter, type Registry } from 'prom-client';

export type Step = 'admission' | 'provision' | 'delivery' | 'teardown';

export type RowObserver = (step: Step, row: string) => void;

export const ignoreRows: RowObserver = () => undefined;

export function keystoneUserRowCounter(registry: Registry): RowObserver {
  const rows = new Counter({
    name: 'openregion_keystoneuser_reconcile_rows_total',
    help: 'KeystoneUser reconcile passes by the decision row each step took',
    labelNames: ['step', 'row'],
    registers: [registry],
  });
  return (step, row) => {
    rows.inc({ step, row });
  };
}
