import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { ConnectionDispatcher } from './connection-handoff';

/** A worker as the dispatcher sees it: what it was handed, and whether its channel is still open. */
class FakeWorker {
  readonly process = { connected: true };
  readonly handed: Array<{ id: number; socket: Socket }> = [];

  constructor(readonly name: string) {}

  send(message: { id: number }, socket: Socket, _options: unknown, callback: (error: Error | null) => void): boolean {
    this.handed.push({ id: message.id, socket });
    callback(null);
    return true;
  }
}

const workers = new EventEmitter();
const tell = (worker: FakeWorker, message: Record<string, unknown>) => workers.emit('message', worker, message);
const asWorker = (worker: FakeWorker) => worker as unknown as Worker;

let dispatcher: ConnectionDispatcher;
let port: number;
const clients: Socket[] = [];

beforeEach(async () => {
  workers.removeAllListeners();
  dispatcher = new ConnectionDispatcher(workers as unknown as ConstructorParameters<typeof ConnectionDispatcher>[0]);
  await new Promise<void>((resolve) => dispatcher.server.listen(0, '127.0.0.1', resolve));
  port = (dispatcher.server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  dispatcher.close();
});

/** Opens a connection that sends `bytes` and waits until the dispatcher has handed it to one of `among`. */
async function connection(bytes: string, among: FakeWorker[]): Promise<{ worker: FakeWorker; id: number }> {
  const before = among.reduce((sum, worker) => sum + worker.handed.length, 0);
  const client = connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  clients.push(client);
  client.write(bytes);
  for (let i = 0; i < 200; i++) {
    if (among.reduce((sum, worker) => sum + worker.handed.length, 0) > before) {
      const worker = among.find((candidate) => candidate.handed.length > 0 && isNewest(candidate, among))!;
      return { worker, id: worker.handed.at(-1)!.id };
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the connection was not handed to any worker');
}

function isNewest(worker: FakeWorker, among: FakeWorker[]): boolean {
  const newest = Math.max(...among.flatMap((candidate) => candidate.handed.map((handed) => handed.id)));
  return worker.handed.at(-1)?.id === newest;
}

/** What the client sent and nobody has read yet: the socket as a worker would get it. */
async function unread(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (chunk) => resolve(chunk.toString()));
    socket.resume();
  });
}

describe('ConnectionDispatcher', () => {
  it('hands connections to the serving workers in turn, and holds them while none serves', async () => {
    const a = new FakeWorker('a');
    const b = new FakeWorker('b');
    const client = connect(port, '127.0.0.1');
    clients.push(client);
    client.write('early');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.handed).toHaveLength(0);

    tell(a, { type: 'gateway:serving' });
    expect(a.handed).toHaveLength(1);
    expect(await unread(a.handed[0]!.socket)).toBe('early');
    tell(b, { type: 'gateway:serving' });
    const owners = [];
    for (let i = 0; i < 4; i++) owners.push((await connection(`request ${i}`, [a, b])).worker.name);
    expect(owners.sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('closes its own descriptor once the worker claims the connection', async () => {
    const a = new FakeWorker('a');
    tell(a, { type: 'gateway:serving' });
    const { id } = await connection('GET /', [a]);
    expect(dispatcher.pending).toBe(1);
    tell(new FakeWorker('other'), { type: 'gateway:connection-claimed', id });
    expect(a.handed[0]!.socket.destroyed).toBe(false);

    tell(a, { type: 'gateway:connection-claimed', id });
    expect(dispatcher.pending).toBe(0);
    expect(a.handed[0]!.socket.destroyed).toBe(true);
  });

  it('hands a declined connection, unread, to another worker and none to the one that declined', async () => {
    const a = new FakeWorker('a');
    const b = new FakeWorker('b');
    tell(a, { type: 'gateway:serving' });
    tell(b, { type: 'gateway:serving' });
    const first = await connection('first', [a, b]);
    const other = first.worker === a ? b : a;
    tell(first.worker, { type: 'gateway:connection-declined', id: first.id });

    expect(other.handed).toHaveLength(1);
    expect(await unread(other.handed[0]!.socket)).toBe('first');
    for (let i = 0; i < 3; i++) expect((await connection(`next ${i}`, [a, b])).worker).toBe(other);
  });

  it('hands the connections a worker did not claim to another once the ended worker channel is read out', async () => {
    const a = new FakeWorker('a');
    const b = new FakeWorker('b');
    tell(a, { type: 'gateway:serving' });
    const claimed = await connection('claimed', [a]);
    tell(a, { type: 'gateway:connection-claimed', id: claimed.id });
    const unclaimed = await connection('unclaimed', [a]);
    tell(b, { type: 'gateway:serving' });

    workers.emit('exit', asWorker(a));
    // Its channel may still hold a claim: nothing moves until it is closed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.handed).toHaveLength(0);
    a.process.connected = false;
    for (let i = 0; i < 100 && b.handed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));

    expect(b.handed.map((handed) => handed.id)).toEqual([expect.any(Number)]);
    expect(await unread(b.handed[0]!.socket)).toBe('unclaimed');
    expect(b.handed[0]!.id).not.toBe(unclaimed.id);
    expect((await connection('after', [a, b])).worker).toBe(b);
  });

  it('hands to another worker a connection its worker could not be sent', async () => {
    const a = new FakeWorker('a');
    const b = new FakeWorker('b');
    a.send = (message, socket, _options, callback) => {
      a.handed.push({ id: message.id, socket });
      callback(new Error('channel closed'));
      return false;
    };
    tell(a, { type: 'gateway:serving' });
    tell(b, { type: 'gateway:serving' });
    await connection('one', [b]);
    await connection('two', [b]);
    expect(b.handed).toHaveLength(2);
    expect(a.handed.length).toBeLessThanOrEqual(1);
  });

  it('hands a late worker nothing new until it is on time, unless every serving worker is late', async () => {
    const a = new FakeWorker('a');
    const b = new FakeWorker('b');
    tell(a, { type: 'gateway:serving' });
    tell(b, { type: 'gateway:serving' });
    dispatcher.setLate(asWorker(a), true);
    for (let i = 0; i < 3; i++) expect((await connection(`while a is late ${i}`, [a, b])).worker).toBe(b);

    dispatcher.setLate(asWorker(b), true);
    const owners = [];
    for (let i = 0; i < 4; i++) owners.push((await connection(`both late ${i}`, [a, b])).worker.name);
    expect(owners.sort()).toEqual(['a', 'a', 'b', 'b']);

    dispatcher.setLate(asWorker(a), false);
    for (let i = 0; i < 3; i++) expect((await connection(`b still late ${i}`, [a, b])).worker).toBe(a);
  });

  it('closes, once closed, the connections that come back from a worker', async () => {
    const a = new FakeWorker('a');
    tell(a, { type: 'gateway:serving' });
    const { id } = await connection('late', [a]);
    dispatcher.close();
    tell(a, { type: 'gateway:connection-declined', id });
    expect(a.handed[0]!.socket.destroyed).toBe(true);
    expect(dispatcher.pending).toBe(0);
  });

  it('does not start what waited for a serving worker once it is closed', async () => {
    const started = jest.fn();
    dispatcher.onceServing(started);
    dispatcher.close();
    tell(new FakeWorker('late'), { type: 'gateway:serving' });
    expect(started).not.toHaveBeenCalled();
  });
});
