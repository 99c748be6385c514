/** One trend line of the operator view (trends.ts holds the series it draws). */
import { KEPT } from './trends.ts';

const W = 240;
const H = 48;

/** One trend: its title, the latest value and the line; the line's label says what a screen reader needs. */
export function Trend({ title, values, unit }: { title: string; values: readonly number[]; unit: string }) {
  const max = Math.max(1, ...values);
  const step = W / Math.max(1, KEPT - 1);
  const offset = W - (values.length - 1) * step;
  const points = values.map((v, i) => `${(offset + i * step).toFixed(1)},${(H - 2 - (v / max) * (H - 4)).toFixed(1)}`);
  const latest = values.at(-1) ?? 0;
  return (
    <figure class="trend">
      <figcaption>
        {title}: <strong>{latest}</strong> {unit}
      </figcaption>
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${String(W)} ${String(H)}`}
        role="img"
        aria-label={`${title}, the last ${String(values.length)} reads, highest ${String(max)} ${unit}`}
      >
        <line x1={0} y1={H - 2} x2={W} y2={H - 2} class="axis" />
        {values.length > 1 ? <polyline points={points.join(' ')} class="line" /> : null}
      </svg>
    </figure>
  );
}
