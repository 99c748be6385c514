/**
 * Octavia's control endpoints, for states the dev cloud cannot be made to show on demand:
 *
 * - `POST /_emulator/octavia/loadbalancers/{id}/error`: the load balancer goes ERROR (a failed amphora).
 * - `POST /_emulator/octavia/provisioning/{id}` `{"status": "PENDING_UPDATE"}`: any load balancer, listener, pool,
 *   member or monitor takes that provisioning status and keeps it (pending work already scheduled is dropped for a
 *   load balancer), until another control or a settled write changes it.
 * - `POST /_emulator/octavia/loadbalancers/{id}/vip-port` `{"port_id": "…"}`: the VIP moves to a real Neutron port
 *   (its first fixed IP becomes the VIP address). This Octavia invents VIP port ids Neutron has never seen, as a noop
 *   network driver does, so a floating IP cannot be attached there; this stands in for a real network driver's port
 *   (the dev cloud's allowed-address-pairs driver makes it in Neutron, ADR 0046).
 */
import { controlError } from '../controls.ts';
import { noContent } from '../http.ts';
import { stringAt } from '../json.ts';
import type { OctaviaApi } from './api.ts';
import type { Provisioning } from './state.ts';
import { defined } from '../../util/defined.ts';

const STATUSES: readonly string[] = ['ACTIVE', 'PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE', 'ERROR'];

export function registerControls(api: OctaviaApi): void {
  const { ctx, state } = api;
  ctx.control.add('POST', '/octavia/provisioning/{id}', (req) => {
    const id = req.params.id ?? '';
    const status = stringAt(req.body, 'status') ?? '';
    if (!STATUSES.includes(status)) throw controlError(400, `status must be one of ${STATUSES.join(', ')}`);
    const lb = state.lbs.get(id);
    const record = lb ?? state.children.get(id);
    if (record === undefined) throw controlError(404, `no load balancer or child ${id}`);
    record.provisioning = status as Provisioning;
    if (lb !== undefined) lb.op++;
    return noContent();
  });
  ctx.control.add('POST', '/octavia/loadbalancers/{id}/vip-port', (req) => {
    const lb = state.lbs.get(req.params.id ?? '');
    const portID = stringAt(req.body, 'port_id');
    const address = stringAt(req.body, 'vip_address');
    if (lb === undefined) throw controlError(404, `no load balancer ${req.params.id ?? ''}`);
    if (portID === undefined) throw controlError(400, 'expected {"port_id": …, "vip_address"?: …}');
    if (lb.ownsVipPort) api.lookups.networks.removeServicePort(String(lb.fields.vip_port_id));
    lb.ownsVipPort = false;
    lb.fields = { ...lb.fields, vip_port_id: portID, ...defined({ vip_address: address }) };
    return noContent();
  });
}
