/**
 * Message formatting shared by the order kinds. Upstream writes its condition messages with Go's fmt; these
 * helpers reproduce the verbs it uses, so a message reads the same in either implementation.
 */
import { MANAGEMENT_CLUSTER } from '../../runtime/types.ts';

/** Go's `%q` for a string. JSON escaping agrees with Go's for the names an order carries (printable text). */
export function goQuote(value: string): string {
  return JSON.stringify(value);
}

/** Go's `%q` for a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** Where an order lives, as the ControlPlane's NamespaceAssignment.Location() words it. */
export function clusterLocation(cluster: string): string {
  return cluster === MANAGEMENT_CLUSTER ? 'the management cluster' : `target cluster ${goQuote(cluster)}`;
}
