import type { ControlReply } from '../control/control.handler';
import { badRequest, parseControlBody } from '../control/control-reply';
import { faultBodySchema, parseFaultBody, type FaultModules } from './fault.schema';
import type { FaultTable } from './fault.table';

export const FAULTS_ROUTE = '/faults';

/** /_sandbox/faults: add (POST), list (GET), clear all (DELETE) or one (DELETE /faults/<id>). */
export class FaultRoutes {
  private readonly schema;

  /** `modules`: the values a fault's `module` may take. */
  constructor(
    private readonly table: FaultTable,
    modules: FaultModules,
  ) {
    this.schema = faultBodySchema(modules);
  }

  /** `path` is the part after /_sandbox; undefined when it is not a fault route. */
  handle(method: string, path: string, body: string): ControlReply | undefined {
    if (path === FAULTS_ROUTE) {
      if (method === 'POST') return this.add(body);
      if (method === 'GET') return { status: 200, payload: { faults: this.table.list() } };
      if (method === 'DELETE') return { status: 200, payload: { cleared: this.table.clear() } };
      return methodNotAllowed(method, path);
    }
    if (!path.startsWith(`${FAULTS_ROUTE}/`)) return undefined;
    const id = path.slice(FAULTS_ROUTE.length + 1);
    if (method !== 'DELETE') return methodNotAllowed(method, path);
    return this.table.remove(id)
      ? { status: 200, payload: { removed: id } }
      : { status: 404, payload: { error: `no fault ${id}` } };
  }

  private add(body: string): ControlReply {
    const parsed = parseFaultBody(this.schema, parseControlBody(body));
    if (!parsed.ok) return badRequest(parsed.message);
    return { status: 201, payload: this.table.add(parsed.spec) };
  }
}

function methodNotAllowed(method: string, path: string): ControlReply {
  return { status: 405, payload: { error: `${method} is not allowed on /_sandbox${path}` } };
}
