/**
 * The emulator's own control endpoints under `/_emulator/`: reset, a JSON dump of state, route faults and the
 * manual clock. Services add theirs (under `/_emulator/<service>/`) through ServiceContext.control.
 */
import { EmuFault, json, noContent, type Router } from './http.ts';
import { booleanAt, isObject, numberAt, stringAt } from './json.ts';
import { CHAOS_FAULT_KINDS, type Chaos, type ChaosFaultKind, type ChaosSettings } from './chaos.ts';
import type { RouteFaultKind, RouteFaultRule, RouteFaults } from './route-faults.ts';
import { defined } from '../util/defined.ts';

interface CoreControls {
  reset(): void;
  dump(): Record<string, unknown>;
  readonly faults: RouteFaults;
  readonly chaos: Chaos;
  advance(ms: number): void;
}

/** A refused control request: plain `{error}` bodies, since no OpenStack service owns these routes. */
export const controlError = (status: number, message: string): EmuFault =>
  new EmuFault(status, { error: message }, message);

export function registerCoreControls(router: Router, control: CoreControls): void {
  router.add('POST', '/_emulator/reset', () => {
    control.reset();
    return noContent();
  });
  router.add('GET', '/_emulator/state', () => json(control.dump()));
  router.add('GET', '/_emulator/faults', () => json({ faults: control.faults.list() }));
  router.add('DELETE', '/_emulator/faults', () => {
    control.faults.clear();
    return noContent();
  });
  // {"route": "/compute/v2.1/servers/{server_id}", "method": "GET", "count": 2,
  //  "status": 503 (optional "message": the fault's text) | "latencyMs": 200 | "reset": true}
  router.add('POST', '/_emulator/faults', (req) => {
    control.faults.add(parseRule(req.body));
    return json({ faults: control.faults.list() }, 201);
  });
  const chaosState = () => ({ settings: control.chaos.settings ?? null, counts: control.chaos.counts });
  // ChaosSettings as JSON, e.g. rates {"burst": 0.02, "reset": 0.01, "lost-answer": 0.01, "latency": 0.05,
  // "conflict": 0.02}, "burstLength": 3, "latencyMs": 300: random faults on every OpenStack route until DELETE.
  router.add('POST', '/_emulator/chaos', (req) => {
    control.chaos.configure(parseChaos(req.body));
    return json(chaosState(), 201);
  });
  router.add('GET', '/_emulator/chaos', () => json(chaosState()));
  router.add('DELETE', '/_emulator/chaos', () => {
    control.chaos.off();
    return json(chaosState());
  });
  router.add('POST', '/_emulator/clock/advance', (req) => {
    const ms = numberAt(req.body, 'ms');
    if (ms === undefined || ms < 0) throw controlError(400, 'expected {"ms": <non-negative number>}');
    try {
      control.advance(ms);
    } catch (error) {
      throw controlError(409, error instanceof Error ? error.message : String(error));
    }
    return noContent();
  });
}

function parseRule(body: unknown): RouteFaultRule {
  if (!isObject(body)) throw controlError(400, 'expected a JSON object');
  const route = stringAt(body, 'route');
  if (route === undefined) throw controlError(400, 'a fault needs "route": a route template or "*"');
  const status = numberAt(body, 'status');
  const latencyMs = numberAt(body, 'latencyMs');
  let kind: RouteFaultKind;
  const message = stringAt(body, 'message');
  if (status !== undefined)
    kind = message === undefined ? { kind: 'status', status } : { kind: 'status', status, message };
  else if (latencyMs !== undefined) kind = { kind: 'latency', ms: latencyMs };
  else if (booleanAt(body, 'reset') === true) kind = { kind: 'reset' };
  else throw controlError(400, 'a fault needs "status", "latencyMs" or "reset": true');
  return { ...kind, route, method: stringAt(body, 'method'), count: numberAt(body, 'count') };
}

function parseChaos(body: unknown): ChaosSettings {
  const seed = numberAt(body, 'seed');
  if (!isObject(body) || seed === undefined || !Number.isInteger(seed))
    throw controlError(400, 'chaos needs "seed": an integer');
  const rates = isObject(body.rates) ? body.rates : {};
  const parsed: Partial<Record<ChaosFaultKind, number>> = {};
  for (const [kind, rate] of Object.entries(rates)) {
    if (!(CHAOS_FAULT_KINDS as readonly string[]).includes(kind))
      throw controlError(400, `"rates.${kind}": not a fault kind (${CHAOS_FAULT_KINDS.join(', ')})`);
    if (typeof rate !== 'number' || rate < 0 || rate > 1)
      throw controlError(400, `"rates.${kind}": a probability between 0 and 1`);
    parsed[kind as ChaosFaultKind] = rate;
  }
  const burstLength = numberAt(body, 'burstLength');
  const latencyMs = numberAt(body, 'latencyMs');
  return {
    seed,
    rates: parsed,
    ...defined({ burstLength, latencyMs }),
  };
}
