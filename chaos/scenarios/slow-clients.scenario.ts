import { connect, type Socket } from 'node:net';
import { LoadDriver, sleep, type LoadKey } from '../load/load-driver';
import { crashesSince, isExpected, MCP_ARGUMENTS, percentile, REST_PATH, tally, type Scenario } from './scenario';

/** docs/configuration.md, "HTTP timeouts": Node's headersTimeout, checked every connectionsCheckingInterval. */
const HEADERS_TIMEOUT_MS = 60_000;
const CHECK_INTERVAL_MS = 30_000;
/** docs/configuration.md: server.keepAliveTimeout of edge-auth and mcp-server. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const NORMAL_P99_TARGET_MS = 1_000;
const TRICKLE_EVERY_MS = 2_000;

interface HeldSocket {
  socket: Socket;
  openedAt: number;
  /** When the server's first bytes came (an idle socket's keep-alive timer starts at the end of its answer). */
  answeredAt?: number;
  closedAt?: number;
  /** The first bytes the server sent (a slow client's 408, an idle client's answer). */
  firstBytes: string;
}

function open(url: string): Promise<HeldSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const held: HeldSocket = { socket, openedAt: Date.now(), firstBytes: '' };
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      held.answeredAt ??= Date.now();
      if (held.firstBytes.length < 64) held.firstBytes += chunk.toString('latin1').slice(0, 64);
    });
    socket.on('close', () => (held.closedAt ??= Date.now()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(held));
    socket.once('error', reject);
  });
}

async function openMany(url: string, count: number, first: (held: HeldSocket) => void): Promise<HeldSocket[]> {
  const held: HeldSocket[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => open(url)));
    for (const socket of batch) first(socket);
    held.push(...batch);
  }
  return held;
}

/**
 * 6. A few hundred slowloris connections (headers trickled) and a couple of thousand idle keep-alive sockets against
 * edge-auth and mcp-server, while a normal client keeps calling both: its answers stay good (p99 reported), and the
 * slow and idle sockets are closed by the documented header and keep-alive timeouts (the full profile holds them long
 * enough to see both; the quick one checks that none is dropped early).
 */
export const slowClientsScenario: Scenario = {
  id: '6',
  name: 'slow and idle clients',
  async run(context) {
    const { cluster, profile, log } = context;
    const keys = (await cluster.keys('s6', 2)).filter((key) => key.mode === 'metered');
    const loadKeys: LoadKey[] = keys.map((key, index) => ({
      label: key.label,
      secret: key.secret,
      channel: index === 0 ? 'rest' : 'mcp',
    }));
    const targets = [cluster.url('edge-auth-1'), cluster.url('mcp-server-1')];
    const exitsBefore = cluster.exitCounts();
    const holdMs =
      profile.name === 'full'
        ? Math.max(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS, KEEP_ALIVE_TIMEOUT_MS) + 5_000
        : 15_000;

    const slow: HeldSocket[] = [];
    const idle: HeldSocket[] = [];
    for (const url of targets) {
      const host = new URL(url).host;
      slow.push(
        ...(await openMany(url, Math.floor(profile.slowloris / targets.length), (held) =>
          held.socket.write(`GET /v1/me HTTP/1.1\r\nHost: ${host}\r\n`),
        )),
      );
      idle.push(
        ...(await openMany(url, Math.floor(profile.idleSockets / targets.length), (held) =>
          held.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`),
        )),
      );
    }
    log(`s6: ${slow.length} slowloris and ${idle.length} idle keep-alive sockets open; holding ${holdMs / 1000} s`);
    let header = 0;
    const trickle = setInterval(() => {
      header++;
      for (const held of slow) if (held.closedAt === undefined) held.socket.write(`X-Slow-${header}: 1\r\n`);
    }, TRICKLE_EVERY_MS);

    const driver = new LoadDriver({
      restOrigins: [targets[0]!],
      mcpUrl: `${targets[1]}/mcp`,
      keys: loadKeys,
      rate: Math.max(4, Math.round(profile.rate / 2)),
      durationMs: holdMs,
      deadlineMs: 15_000,
      restPath: REST_PATH,
      mcpArguments: MCP_ARGUMENTS,
    });
    let outcomes;
    try {
      outcomes = (await driver.run()).outcomes;
    } finally {
      clearInterval(trickle);
      driver.close();
      await sleep(200);
      for (const held of [...slow, ...idle]) held.socket.destroy();
    }

    const bad = outcomes.filter((outcome) => !isExpected(outcome));
    const p99 = percentile(
      outcomes.map((outcome) => outcome.latencyMs),
      99,
    );
    // A slow client's header timeout runs from its connection, an idle one's keep-alive timeout from its answer.
    const closedAfter = (held: HeldSocket, from: number | undefined) =>
      held.closedAt === undefined || from === undefined || held.closedAt - held.openedAt >= holdMs
        ? undefined
        : held.closedAt - from;
    const slowClosed = slow
      .map((held) => closedAfter(held, held.openedAt))
      .filter((ms): ms is number => ms !== undefined);
    const idleClosed = idle
      .map((held) => closedAfter(held, held.answeredAt))
      .filter((ms): ms is number => ms !== undefined);
    const idleUnanswered = idle.filter((held) => held.answeredAt === undefined).length;
    const slow408 = slow.filter((held) => held.firstBytes.startsWith('HTTP/1.1 408')).length;
    let timeoutsOk: boolean;
    let timeoutNote: string;
    if (profile.name === 'full') {
      const slowInWindow = slowClosed.filter(
        (ms) => ms >= HEADERS_TIMEOUT_MS - 1_000 && ms <= HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + 2_000,
      ).length;
      const idleInWindow = idleClosed.filter(
        (ms) => ms >= KEEP_ALIVE_TIMEOUT_MS - 1_000 && ms <= KEEP_ALIVE_TIMEOUT_MS + 2_000,
      ).length;
      timeoutsOk = slowInWindow === slow.length && idleInWindow === idle.length;
      timeoutNote =
        `slowloris closed within the header timeout window (${HEADERS_TIMEOUT_MS / 1000}-${(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS) / 1000} s): ` +
        `${slowInWindow}/${slow.length} (408 answers: ${slow408}; closed after p50 ${percentile(slowClosed, 50)} ms, max ${percentile(slowClosed, 100)} ms); ` +
        `idle closed at the keep-alive timeout (${KEEP_ALIVE_TIMEOUT_MS / 1000} s): ${idleInWindow}/${idle.length} ` +
        `(after their answer: min ${percentile(idleClosed, 0)} ms, p50 ${percentile(idleClosed, 50)} ms, max ` +
        `${percentile(idleClosed, 100)} ms; not closed while held ${idle.length - idleClosed.length}; never answered ` +
        `${idleUnanswered})`;
    } else {
      timeoutsOk = slowClosed.length === 0 && idleClosed.length === 0;
      timeoutNote =
        `quick profile holds ${holdMs / 1000} s, shorter than the timeouts: closed early ${slowClosed.length} slowloris, ` +
        `${idleClosed.length} idle (must be 0); the timeouts themselves are measured by the full profile`;
    }
    const crashes = crashesSince(context, exitsBefore);
    const met = bad.length === 0 && p99 <= NORMAL_P99_TARGET_MS && timeoutsOk && crashes.total === 0;
    return {
      id: this.id,
      name: this.name,
      action: `${slow.length} slowloris (a header every ${TRICKLE_EVERY_MS / 1000} s) + ${idle.length} idle keep-alive sockets on edge-auth-1 and mcp-server-1, ${holdMs / 1000} s`,
      load: `${Math.max(4, Math.round(profile.rate / 2))}/s for ${Math.round(holdMs / 1000)} s (normal client, REST + MCP)`,
      during: tally(outcomes),
      after: {},
      recoveryMs: 0,
      usageLost: '-',
      overAdmission: '-',
      crashes: crashes.text,
      target: `normal client: only 2xx, p99 <= ${NORMAL_P99_TARGET_MS} ms; slow/idle sockets closed at the documented timeouts (headers ${HEADERS_TIMEOUT_MS / 1000} s, keep-alive ${KEEP_ALIVE_TIMEOUT_MS / 1000} s), not before`,
      met,
      notes: [`normal client p99 ${p99} ms, ${bad.length} bad answers ${JSON.stringify(tally(bad))}`, timeoutNote],
    };
  },
};
