import type { ControlReply } from './control.handler';

export function badRequest(message: string): ControlReply {
  return { status: 400, payload: { error: message } };
}

/** A control route's JSON body: {} when empty, undefined when it is not JSON. */
export function parseControlBody(body: string): unknown {
  try {
    return body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    return undefined;
  }
}
