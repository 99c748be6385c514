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

/** Glance answers errors as a small HTML page (webob's), which clients read as text. */
export function glanceFault(status: number, message: string): EmuFault {
  const title = `${String(status)} ${GLANCE_TITLES[status] ?? 'Error'}`;
  const html = `<html>\n <head>\n  <title>${title}</title>\n </head>\n <body>\n  <h1>${title}</h1>\n  ${escapeHtml(message)}<br /><br />\n\n\n\n </body>\n</html>`;
  return new EmuFault(status, html, message, { 'content-type': 'text/html; charset=UTF-8' });
}

const GLANCE_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
