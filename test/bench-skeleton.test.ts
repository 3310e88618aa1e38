import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { startSkeleton, type SkeletonBaseline } from '../bench/baselines/skeleton.baseline';
import { testNatsUrl } from './harness';

/**
 * The benchmark's skeleton of the design (bench/baselines/skeleton.baseline.ts) over real NATS, a real gRPC stream
 * and real HTTP: it must do the hops the gateway does, so that its CPU per answer is a floor worth comparing with.
 */
let upstream: Server;
let skeleton: SkeletonBaseline;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const body = JSON.stringify({ code: 0, data: { path: req.url } });
    res.writeHead(req.headers['access-token'] === 'platform-token' ? 200 : 401, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  skeleton = await startSkeleton({
    natsUrl: testNatsUrl(),
    upstream: new URL(`http://127.0.0.1:${port}`),
    token: 'platform-token',
    env: { SKELETON_PROBE: 'passed-on' },
  });
}, 30_000);

afterAll(async () => {
  await skeleton?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
});

it('forwards each request through the decider and the proxy to the platform path, with the platform token', async () => {
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, index) =>
      fetch(`${skeleton.origin}/v1/video-ads/v1.3/campaign/get/?page=${index}`, {
        headers: { 'X-API-Key': `key-${index % 4}` },
      }),
    ),
  );
  const bodies = await Promise.all(answers.map(async (answer) => (await answer.json()) as { data: { path: string } }));
  expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
  expect(bodies.map((body) => body.data.path).sort()).toEqual(
    Array.from({ length: 40 }, (_, index) => `/open_api/v1.3/campaign/get/?page=${index}`).sort(),
  );
  expect(seen.every((request) => request.headers['access-token'] === 'platform-token')).toBe(true);
  expect(seen.some((request) => request.headers['x-api-key'] !== undefined)).toBe(false);
});

it('answers 404 without a key or off the provider path, and calls no platform then', async () => {
  const before = seen.length;
  expect((await fetch(`${skeleton.origin}/v1/video-ads/x`)).status).toBe(404);
  expect((await fetch(`${skeleton.origin}/elsewhere`, { headers: { 'X-API-Key': 'k' } })).status).toBe(404);
  expect(seen.length).toBe(before);
});

it('names each of its processes by pid, each started with the extra variables it was given', async () => {
  const { edge, proxy, decider } = skeleton.pids;
  expect(new Set([edge, proxy, decider]).size).toBe(3);
  const scripts = await Promise.all(
    [edge, proxy, decider].map(async (pid) => (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[1]),
  );
  expect(scripts.map((script) => basename(script ?? ''))).toEqual([
    'skeleton-edge.server.cjs',
    'skeleton-proxy.server.cjs',
    'skeleton-decider.server.cjs',
  ]);
  for (const pid of [edge, proxy, decider]) {
    expect((await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0')).toContain('SKELETON_PROBE=passed-on');
  }
});
