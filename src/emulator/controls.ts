/**
 * The emulator's own control endpoints under `/_emulator/`: reset, a JSON dump of state, route faults and the
 * manual clock. Services add theirs (under `/_emulator/<service>/`) through ServiceContext.control.
 */
import { EmuFault, json, noContent, type Router } from './http.ts';
import { booleanAt, isObject, numberAt, stringAt } from './json.ts';
import type { RouteFaultKind, RouteFaultRule, RouteFaults } from './route-faults.ts';

interface CoreControls {
  reset(): void;
  dump(): Record<string, unknown>;
  readonly faults: RouteFaults;
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
