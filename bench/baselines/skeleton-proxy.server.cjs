// The design's skeleton (skeleton.baseline.ts), in place of provider-proxy: takes turns of request frames on a gRPC
// stream, sends each to the platform sandbox with the connection's token over kept-alive connections, and sends the
// answers back a turn at a time. Prints its port on stdout.
const { Pool } = require('undici');
const { grpc, proxyService, encodeFrames, decodeFrames, turnQueue } = require('./skeleton-frames.cjs');

const upstream = new Pool(process.env.SKELETON_UPSTREAM, { connections: 64 });
const headers = { 'access-token': process.env.SKELETON_TOKEN };

function exchange(call) {
  const answer = turnQueue((frames) => call.write(encodeFrames(frames)));
  call.on('data', (message) =>
    decodeFrames(message, (id, _status, path) => {
      upstream.request({ method: 'GET', path: path.toString(), headers }).then(
        async ({ statusCode, body }) =>
          answer({ id, status: statusCode, bytes: Buffer.from(await body.arrayBuffer()) }),
        () => answer({ id, status: 502, bytes: Buffer.alloc(0) }),
      );
    }),
  );
  call.on('end', () => call.end());
  call.on('error', () => undefined);
}

const server = new grpc.Server();
server.addService(proxyService, { exchange });
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  console.log(String(port));
});
process.on('SIGTERM', () => server.tryShutdown(() => void upstream.close().then(() => process.exit(0))));
