/**
 * Kubernetes quantities (`10Gi`, `512M`, `1e3`) as plain numbers: the Region's flavor overrides (memory, GPU
 * memory), Volume sizes. The CRDs' pattern admits only these forms; anything else is undefined.
 */
const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The quantity's value (bytes, for a size), rounded to a whole number; undefined when it is not a quantity. */
export function quantityBytes(quantity: string | number): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  const m = QUANTITY.exec(quantity.trim());
  if (m?.[1] === undefined) return undefined;
  const suffix = m[2] ?? '';
  const exponent = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : undefined;
  const scale = BINARY[suffix] ?? DECIMAL[suffix] ?? exponent;
  return scale === undefined ? undefined : Math.round(Number(m[1]) * scale);
}
