import { once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TurnBatchedResponse } from './turn-batched-response';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('TurnBatchedResponse', () => {
  let server: Server;
  let origin: string;
  let route: Route;
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });

  beforeAll(async () => {
    server = createServer({ ServerResponse: TurnBatchedResponse }, (req, res) => route(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string, options: { agent?: Agent | false } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const call = request(`${origin}${path}`, { agent: options.agent ?? agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      });
      call.on('error', reject);
      call.end();
    });

  it('ends the answer when the turn ends, with its status, headers and body intact', async () => {
    const seen: boolean[] = [];
    route = (_req, res) => {
      res.statusCode = 429;
      res.setHeader('Content-Type', 'application/problem+json');
      res.setHeader('Retry-After', '1');
      res.end('{"code":"rate_limited"}');
      seen.push(res.writableEnded);
      setImmediate(() => seen.push(res.writableEnded));
    };
    const answer = await get('/one');
    expect(answer).toMatchObject({
      status: 429,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '1', 'content-length': '23' },
      body: '{"code":"rate_limited"}',
    });
    expect(seen).toEqual([false, true]);
  });

  it('writes the answers ended in one turn together, after the turn', async () => {
    const waiting: ServerResponse[] = [];
    const endedInTheTurn: boolean[] = [];
    let afterTheTurn: boolean[] = [];
    route = (req, res) => {
      waiting.push(res);
      if (waiting.length < 2) return;
      // Both answers are ended in the second request's turn.
      for (const held of waiting) held.end(`answer to ${held.req.url}`);
      endedInTheTurn.push(...waiting.map((held) => held.writableEnded));
      setImmediate(() => (afterTheTurn = waiting.map((held) => held.writableEnded)));
    };
    const answers = await Promise.all([get('/a'), get('/b')]);
    expect(answers.map((answer) => answer.body).sort()).toEqual(['answer to /a', 'answer to /b']);
    expect(endedInTheTurn).toEqual([false, false]);
    expect(afterTheTurn).toEqual([true, true]);
  });

  it('keeps what was written before end() ahead of end()’s own chunk, and calls its callback', async () => {
    let finished = false;
    route = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first,');
      res.write('second,');
      res.end('last', () => (finished = true));
    };
    expect((await get('/streamed')).body).toBe('first,second,last');
    expect(finished).toBe(true);
  });

  it("emits 'finish' once the deferred end has written the answer", async () => {
    const events: string[] = [];
    route = (_req, res) => {
      res.on('finish', () => events.push('finish'));
      res.end('ok');
      events.push('end called');
    };
    await get('/finish');
    expect(events).toEqual(['end called', 'finish']);
  });

  it('ends an answer whose end() came in the check phase of the loop', async () => {
    route = (_req, res) => setImmediate(() => setImmediate(() => res.end('late')));
    expect((await get('/late')).body).toBe('late');
  });

  it('answers many concurrent requests, each with its own body', async () => {
    route = (req, res) => {
      const delay = Number(new URL(req.url!, origin).searchParams.get('delay'));
      const answer = () => res.end(`body of ${req.url}`);
      if (delay === 0) answer();
      else setTimeout(answer, delay);
    };
    const paths = Array.from({ length: 300 }, (_, i) => `/many?i=${i}&delay=${i % 3}`);
    const answers = await Promise.all(paths.map((path) => get(path)));
    expect(answers.map((answer) => answer.body)).toEqual(paths.map((path) => `body of ${path}`));
  });

  it('treats a second end() as node does: no second answer, its callback called before the first', async () => {
    const outcomes: string[] = [];
    route = (_req, res) => {
      res.end('once', () => outcomes.push('first'));
      res.end(() => outcomes.push('second'));
    };
    expect((await get('/twice')).body).toBe('once');
    await new Promise((resolve) => setImmediate(resolve));
    // node:http calls the callback of an end() on an ended answer on the next tick, the first one's on 'finish'.
    expect(outcomes).toEqual(['second', 'first']);
  });

  it('survives a client that went away before the turn ended', async () => {
    let ended!: () => void;
    const endedNow = new Promise<void>((resolve) => (ended = resolve));
    route = (req, res) => {
      req.socket.destroy();
      res.end('nobody reads this');
      setImmediate(ended);
    };
    await expect(get('/gone', { agent: false })).rejects.toThrow();
    await endedNow;
    route = (_req, res) => res.end('still serving');
    expect((await get('/after')).body).toBe('still serving');
  });

  it('cuts only the answer whose end() fails and ends the others of its turn', async () => {
    const waiting: ServerResponse[] = [];
    route = (req, res) => {
      waiting.push(res);
      if (waiting.length < 2) return;
      for (const held of waiting) {
        // A number is not a chunk: node's end() throws ERR_INVALID_ARG_TYPE, here when the turn ends.
        if (held.req.url === '/bad') (held.end as (chunk: unknown) => void)(42);
        else held.end('fine');
      }
    };
    const [bad, good] = await Promise.allSettled([get('/bad', { agent: false }), get('/good', { agent: false })]);
    expect(bad.status).toBe('rejected');
    expect(good).toEqual({ status: 'fulfilled', value: expect.objectContaining({ status: 200, body: 'fine' }) });
  });

  it('leaves responses of other servers as node makes them', async () => {
    const plain = createServer((_req, res) => {
      res.end('plain');
      expect(res).not.toBeInstanceOf(TurnBatchedResponse);
      expect(res.writableEnded).toBe(true);
    });
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    const port = (plain.address() as AddressInfo).port;
    const body = await new Promise<string>((resolve, reject) =>
      request(`http://127.0.0.1:${port}/`, { agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end(),
    );
    plain.close();
    expect(body).toBe('plain');
  });
});
