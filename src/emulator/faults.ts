/** Error answers in each service's own body shape, so clients parse emulator faults as they parse real ones. */
import { EmuFault } from './http.ts';

const NOVA_KEYS: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  409: 'conflictingRequest',
  413: 'overLimit',
};

/** Nova and Cinder: `{"itemNotFound": {"code": 404, "message": "..."}}`. */
export function novaFault(status: number, message: string): EmuFault {
  const key = NOVA_KEYS[status] ?? 'computeFault';
  return new EmuFault(status, { [key]: { code: status, message } }, message);
}

/** Keystone: `{"error": {"code", "title", "message"}}`. */
export function keystoneFault(status: number, title: string, message: string): EmuFault {
  return new EmuFault(status, { error: { code: status, title, message } }, message);
}

/** Neutron: `{"NeutronError": {"type", "message", "detail"}}`. */
export function neutronFault(status: number, type: string, message: string): EmuFault {
  return new EmuFault(status, { NeutronError: { type, message, detail: '' } }, message);
}

/** Octavia: `{"faultcode", "faultstring", "debuginfo"}`. */
export function octaviaFault(status: number, message: string): EmuFault {
  return new EmuFault(
    status,
    { faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null },
    message,
  );
}

/** Placement: `{"errors": [{"status", "title", "detail", "code"}]}`. */
export function placementFault(status: number, code: string, detail: string): EmuFault {
  return new EmuFault(
    status,
    { errors: [{ status, title: 'Error', detail, code, request_id: 'req-emulator' }] },
    detail,
  );
}

/** Ironic: the fault serialised as JSON inside `error_message`. */
export function ironicFault(status: number, message: string): EmuFault {
  return new EmuFault(
    status,
    { error_message: JSON.stringify({ faultcode: 'Client', faultstring: message, debuginfo: null }) },
    message,
  );
}

/** Glance answers errors as plain text (HTML-ish in the real service). */
export function glanceFault(status: number, message: string): EmuFault {
  return new EmuFault(status, `${String(status)} ${message}`, message);
}
