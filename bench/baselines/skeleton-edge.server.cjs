// The design's skeleton (skeleton.baseline.ts), in place of edge-auth: the same hops without the logic. Each request
// joins its turn's one NATS request to the decider, then, admitted, its turn's one message on a gRPC stream to the
// proxy; the answer goes back as the sandbox gave it. Prints its port on stdout.
const { createServer } = require('node:http');
const { connect } = require('nats');
const { grpc, proxyService, encodeFrames, decodeFrames, turnQueue } = require('./skeleton-frames.cjs');

const PREFIX = '/v1/video-ads/';
const UPSTREAM_PREFIX = '/open_api/';

async function main() {
  const nc = await connect({ servers: process.env.SKELETON_NATS_URL });
  const Client = grpc.makeGenericClientConstructor(proxyService, 'Proxy');
  const stream = new Client(process.env.SKELETON_PROXY_ADDRESS, grpc.credentials.createInsecure()).exchange();
  const waiting = new Map();
  let nextId = 1;

  const forward = turnQueue((frames) => stream.write(encodeFrames(frames)));
  stream.on('data', (message) =>
    decodeFrames(message, (id, status, body) => {
      const res = waiting.get(id);
      if (!res) return;
      waiting.delete(id);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    }),
  );

  const decide = turnQueue(async (requests) => {
    let verdicts;
    try {
      const keys = Buffer.from(requests.map((request) => request.key).join('\n'));
      verdicts = (await nc.request(process.env.SKELETON_SUBJECT, keys, { timeout: 2000 })).data;
    } catch {
      verdicts = new Uint8Array(requests.length);
    }
    requests.forEach((request, index) => {
      if (verdicts[index] !== 1) {
        request.res.writeHead(503);
        request.res.end();
        return;
      }
      const id = nextId++;
      waiting.set(id, request.res);
      forward({ id, status: 0, bytes: Buffer.from(request.path) });
    });
  });

  const server = createServer((req, res) => {
    const key = req.headers['x-api-key'];
    const url = req.url ?? '';
    if (typeof key !== 'string' || !url.startsWith(PREFIX)) {
      res.writeHead(404);
      res.end();
      return;
    }
    decide({ key, res, path: UPSTREAM_PREFIX + url.slice(PREFIX.length) });
  });
  server.listen(0, '127.0.0.1', () => console.log(String(server.address().port)));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
