import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainHttpServer } from './http-drain';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

function get(port: number, agent: Agent, path = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body, reusedSocket: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('drainHttpServer', () => {
  const agents: Agent[] = [];
  const keepAlive = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return agent;
  };
  afterEach(() => agents.splice(0).forEach((agent) => agent.destroy()));

  it('answers a request on a kept-alive connection during the grace and closes that connection after it', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listening(server);
    const agent = keepAlive();
    expect((await get(port, agent)).headers.connection).toBe('keep-alive');

    const drained = drainHttpServer(server, 5_000);
    const during = await get(port, agent);
    expect(during).toMatchObject({ status: 200, body: 'ok', reusedSocket: true });
    expect(during.headers.connection).toBe('close');
    // The connection was the last one: the drain ends with it, long before the grace.
    await drained;
  });

  it('refuses new connections at once', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listening(server);
    const drained = drainHttpServer(server, 5_000);
    await expect(get(port, keepAlive())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await drained;
  });

  it('closes connections that stayed idle once the grace is over', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listening(server);
    const agent = keepAlive();
    await get(port, agent);
    const [socket] = Object.values(agent.freeSockets).flat();
    const closed = new Promise<number>((resolve) => socket!.once('close', () => resolve(Date.now())));

    const started = Date.now();
    await drainHttpServer(server, 300);
    expect((await closed) - started).toBeGreaterThanOrEqual(250);
  });

  it('waits for an answer in progress, which still arrives whole', async () => {
    const server = createServer((_req, res) => {
      setTimeout(() => res.end('late'), 300);
    });
    const port = await listening(server);
    const answer = get(port, keepAlive());
    await new Promise((resolve) => setTimeout(resolve, 50));

    let drainedAt = 0;
    const drained = drainHttpServer(server, 10).then(() => (drainedAt = Date.now()));
    const { status, body } = await answer;
    const answeredAt = Date.now();
    await drained;
    expect({ status, body }).toEqual({ status: 200, body: 'late' });
    expect(drainedAt).toBeGreaterThanOrEqual(answeredAt - 5);
  });
});
