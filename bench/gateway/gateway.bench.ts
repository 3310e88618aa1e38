import { startBareHttp } from '../baselines/bare-http.baseline';
import { startNginx, type NginxBaseline } from '../baselines/nginx.baseline';
import { startSkeleton } from '../baselines/skeleton.baseline';
import { runRefusalBench, type RefusalSection } from './refusal.bench';
import { TARGET_BOUNDS } from './targets';
import { runK6, type K6Result } from '../load/k6.runner';
import { startEdgeStageMeter, type EdgeStages } from '../lib/edge-stages';
import { runWrk, type WrkResult, type WrkTarget } from '../load/wrk.runner';
import { warmUntilSteady, warmUpText, type WarmUp } from '../load/warm-up';
import { CpuMeter, cpuByName } from '../lib/cpu-meter';
import { settle } from '../lib/settle';
import { bestOf, ratio } from '../lib/stats';
import type { RunningService } from '@gateway/testing';
import type { BenchEnvironment } from '../setup/bench-environment';

export interface SaturationSettings {
  threads: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** No target is called steady before this much load (load/warm-up.ts, minSeconds). */
  minWarmupSeconds: number;
  maxWarmupSeconds: number;
}

export type GatewayTargetName =
  'direct' | 'nginx' | 'skeleton' | 'gateway-stream' | 'gateway-unary' | 'gateway-video-shop';

export interface GatewaySettings {
  keys: number;
  /**
   * Keys nginx's target spreads its load over, so that none passes its rate there either. nginx passes more requests
   * a second than the gateway: over the gateway's keys its limiter refused about three requests for every one it
   * forwarded, and those refusals counted in its CPU per answer. Absent in reports made before (nginx used `keys`).
   */
  nginxKeys?: number;
  /**
   * warmupSeconds is one warm-up window: each target is loaded window after window until its rate stops climbing,
   * for at least minWarmupSeconds and at most maxWarmupSeconds (load/warm-up.ts).
   */
  saturation: SaturationSettings;
  /** Fixed arrival rates; the first is the one the target is stated at (1,000 req/s). */
  latency: { rate: number; seconds: number }[];
  runs: number;
}

export interface RateFigures {
  rate: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  runs: K6Result[];
  /** Gateway targets: where each run's requests waited, from edge-auth's histograms (in run order). */
  edgeStages: EdgeStages[];
}

export interface GatewayTargetFigures {
  name: GatewayTargetName;
  description: string;
  saturation: { okPerSecond: number; p50Ms: number; p99Ms: number; runs: WrkResult[] };
  /** The windows of load before the first measured run (absent in reports made before the warm-up ran until steady). */
  warmUp?: WarmUp;
  atRates: RateFigures[];
}

export interface TransportComparison {
  transport: 'stream' | 'unary';
  faster: boolean;
  /** Per fixed rate: gateway minus direct, and gateway p99 minus nginx's. */
  added: { rate: number; p50Ms: number; p99Ms: number; p99VsNginxMs: number }[];
  /** Saturated full-path throughput / nginx's / direct's. */
  throughputVsNginx: number;
  throughputVsDirect: number;
}

/**
 * The fixed rate of issue 17's latency target (200 req/s), as a transport's added figures hold it; the first rate
 * measured when a run had none at 200. The target's verdict and the report read the same level through this.
 */
/**
 * A limited target (the gateway's or nginx's) whose measured saturation runs got answers other than 2xx: on the
 * bench's keys that is a limiter refusing, because the keys' combined rate capped the run, or a failure. Either way
 * its throughput and CPU per answer are not its path's own, and the targets that use them are not evaluated.
 */
export function refusedAtSaturation(target: GatewayTargetFigures): boolean {
  return target.saturation.runs.some((run) => run.non2xx > 0);
}

export function latencyTargetLevel(transport: TransportComparison): TransportComparison['added'][number] {
  return transport.added.find((level) => level.rate === 200) ?? transport.added[0]!;
}

/** CPU time per 2xx answer, by process, in microseconds (saturation run 1): robust to other load on the machine. */
export interface CpuPerRequest {
  target: GatewayTargetName | 'bare node:http';
  microsByProcess: Record<string, number>;
  /** Everything but the load generator and this orchestrating process. */
  serverMicros: number;
}

export interface GatewaySection {
  settings: GatewaySettings;
  /** What each load key may pass (its plan): the keys together cap what a gateway target can forward. */
  keyRate?: { rps: number; burst: number };
  tools: { wrk: string; k6: string; nginx: string };
  nginxConfig: string;
  /** A bare node:http server answering a small JSON (docs/benchmarks.md, "Design figures"), to compare machines. */
  calibration: { okPerSecond: number; p50Ms: number; runs: WrkResult[]; warmUp?: WarmUp };
  targets: GatewayTargetFigures[];
  cpuPerRequest: CpuPerRequest[];
  transports: TransportComparison[];
  /**
   * The video-shop scenario beside video-ads over the same edge (stream transport), measured in the same run:
   * saturated 2xx answers per second and CPU per answer per process. Absent in reports made before it existed.
   */
  providers?: ProviderComparison;
  /** Keys over their rate at saturation, gateway against nginx limit_req (issue 17). Absent in older reports. */
  refusal?: RefusalSection;
  /**
   * Issue 17's targets: added p99 at 200 req/s at most 10 ms; saturated throughput at least 0.3x nginx's; gateway
   * CPU per answer (sandbox left out) at most 3x nginx's; refusals at least 0.5x nginx limit_req's.
   */
  /** null: not evaluated, because the kept gateway target's or nginx's saturation runs were refused (refusedAtSaturation). */
  targetsMet: {
    addedP99AtRate: boolean;
    throughputVsNginx: boolean | null;
    cpuVsNginx?: boolean | null;
    refusalVsNginx?: boolean;
  };
  /** Gateway CPU per answer / nginx's, the sandbox left out on both sides. */
  cpuVsNginx?: number;
  /** The same, FerretDB (the MongoDB stand-in) left out as well. */
  cpuVsNginxWithoutDatabase?: number;
  /**
   * The kept gateway path against the design's skeleton (baselines/skeleton.baseline.ts) in the same run: what the
   * gateway's own work costs over the hops of its design. A reference, not one of issue 17's targets. Absent in
   * reports made before the skeleton ran.
   */
  vsSkeleton?: { cpu: number; throughput: number };
}

export interface ProviderComparison {
  rows: {
    provider: 'video-ads' | 'video-shop';
    target: GatewayTargetName;
    request: string;
    okPerSecond: number;
    cpu: CpuPerRequest;
  }[];
}

interface TargetSpec {
  name: GatewayTargetName;
  description: string;
  wrk: WrkTarget;
  /** The edge-auth process of a gateway target (profiled, its stages measured). */
  edge?: RunningService;
}

function cpuPerRequest(target: CpuPerRequest['target'], run: WrkResult | undefined): CpuPerRequest {
  const microsByProcess: Record<string, number> = {};
  let serverMicros = 0;
  if (run?.cpu) {
    const answers = Math.max(1, run.requests - run.non2xx);
    for (const [name, percent] of cpuByName(run.cpu)) {
      const micros = ((percent / 100) * run.cpu.seconds * 1e6) / answers;
      microsByProcess[name] = Math.round(micros);
      if (name !== 'wrk' && name !== 'bench (main)') serverMicros += micros;
    }
  }
  return { target, microsByProcess, serverMicros: Math.round(serverMicros) };
}

/**
 * Section 2: the full path (edge-auth -> NATS -> quota-actor -> gRPC -> provider-proxy -> sandbox) against the
 * sandbox called directly and against nginx + limit_req in front of the same sandbox. Saturation with wrk,
 * latency at fixed arrival rates with k6; every target's runs interleaved with the others', and before each run
 * the processes are given a moment to finish what the previous run left (bounded).
 */
export async function runGatewayBench(
  env: BenchEnvironment,
  tools: {
    wrk: { path: string; version: string };
    k6: { path: string; version: string };
    nginx: { path: string; version: string };
  },
  settings: GatewaySettings,
  workDir: string,
  log: (message: string) => void,
): Promise<GatewaySection> {
  const keys = env.loadKeys.slice(0, settings.keys).map((key) => key.secret);
  // nginx forwards any X-API-Key (it checks none), so its keys need not exist.
  const nginxKeys = Array.from({ length: settings.nginxKeys ?? keys.length }, (_, index) => `nginx-load-${index}`);
  const { path, query } = env.platformPathAndQuery();
  const gatewayTarget = `/v1/video-ads${path}?${query}`;
  const shopKeys = env.shopKeys.slice(0, settings.keys).map((key) => key.secret);
  const shop = env.shopPathAndQuery();
  const shopTarget = `/v1/video-shop${shop.path}${shop.query ? `?${shop.query}` : ''}`;
  const calm = () => settle(15_000);
  const nginx: NginxBaseline = await startNginx(tools.nginx.path, workDir, {
    upstream: new URL(env.cluster.sandbox.url),
    token: env.platform.token,
    rps: env.plans.load.rps,
    burst: env.plans.load.burst,
    refusal: { rps: 1, burst: 1 },
  });
  const bare = await startBareHttp();
  const skeleton = await startSkeleton({
    natsUrl: env.nats.url,
    upstream: new URL(env.cluster.sandbox.url),
    token: env.platform.token,
  }).catch(async (error: unknown) => {
    await Promise.all([bare.stop(), nginx.stop()]);
    throw error;
  });
  try {
    const specs: TargetSpec[] = [
      {
        name: 'direct',
        description: 'load -> platform sandbox (the upstream alone)',
        wrk: {
          origin: env.cluster.sandbox.url,
          target: `/open_api${path}?${query}`,
          keys,
          headers: { 'Access-Token': env.platform.token },
        },
      },
      {
        name: 'nginx',
        description: 'load -> nginx (limit_req per X-API-Key, keep-alive upstream) -> sandbox',
        wrk: { origin: nginx.origin, target: gatewayTarget, keys: nginxKeys },
      },
      {
        name: 'skeleton',
        description:
          "the design with none of the gateway's logic: load -> HTTP server -> NATS -> a decider that admits all; " +
          'the server -> gRPC stream -> a proxy with the platform token -> sandbox (batched per turn like the gateway)',
        wrk: { origin: skeleton.origin, target: gatewayTarget, keys },
      },
      {
        name: 'gateway-stream',
        description: 'load -> edge-auth -> NATS -> quota-actor; edge-auth -> gRPC stream -> provider-proxy -> sandbox',
        wrk: { origin: env.edges.stream.url, target: gatewayTarget, keys },
        edge: env.edges.stream,
      },
      {
        name: 'gateway-unary',
        description: 'as gateway-stream, with one unary gRPC call per request',
        wrk: { origin: env.edges.unary.url, target: gatewayTarget, keys },
        edge: env.edges.unary,
      },
      {
        name: 'gateway-video-shop',
        description:
          `as gateway-stream, video-shop GET ${shop.path}: provider-proxy signs every request (HMAC-SHA256), ` +
          'the sandbox verifies the signature',
        wrk: { origin: env.edges.stream.url, target: shopTarget, keys: shopKeys },
        edge: env.edges.stream,
      },
    ];
    const calibrationTarget: WrkTarget = { origin: bare.origin, target: '/', keys };

    const saturation = new Map<GatewayTargetName, WrkResult[]>(specs.map((spec) => [spec.name, []]));
    const calibrationRuns: WrkResult[] = [];
    const atRate = new Map<string, K6Result[]>();
    const wrkOptions = { threads: settings.saturation.threads, connections: settings.saturation.connections };
    const measure = async (target: WrkTarget) => {
      const meter = new CpuMeter();
      const result = await runWrk(tools.wrk.path, workDir, target, {
        ...wrkOptions,
        seconds: settings.saturation.seconds,
      });
      result.cpu = meter.stop();
      return result;
    };

    // Connections, JIT and caches warm until the rate stops climbing; the windows are reported, not measured.
    const warmUps = new Map<WrkTarget, WarmUp>();
    for (const target of [calibrationTarget, ...specs.map((spec) => spec.wrk)]) {
      const warmUp = await warmUntilSteady(
        {
          windowSeconds: settings.saturation.warmupSeconds,
          minSeconds: settings.saturation.minWarmupSeconds,
          maxSeconds: settings.saturation.maxWarmupSeconds,
        },
        async (seconds) => (await runWrk(tools.wrk.path, workDir, target, { ...wrkOptions, seconds })).okPerSecond,
      );
      warmUps.set(target, warmUp);
      log(`gateway: warm-up ${target.origin}${target.target.split('?')[0]}: ${warmUpText(warmUp)}`);
    }
    for (let run = 1; run <= settings.runs; run++) {
      await calm();
      const calibration = await measure(calibrationTarget);
      calibrationRuns.push(calibration);
      log(`gateway: wrk bare node:http  run ${run}: ${Math.round(calibration.okPerSecond)} req/s (calibration)`);
      for (const spec of specs) {
        await calm();
        const edge = spec.edge;
        const result =
          run === 1 && edge
            ? await env.profile(
                `gateway, ${spec.name} saturation`,
                [edge, env.cluster.proxy, ...env.liveActors()],
                () => measure(spec.wrk),
              )
            : await measure(spec.wrk);
        saturation.get(spec.name)!.push(result);
        log(
          `gateway: wrk ${spec.name.padEnd(16)} run ${run}: ${Math.round(result.okPerSecond)} req/s, ` +
            `p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, ` +
            `non-2xx ${result.non2xx}, socket errors ${result.socketErrors}`,
        );
        if (result.requests - result.non2xx === 0 && spec.name.startsWith('gateway')) {
          // Nothing came back: what the services said is the only clue a report can carry.
          for (const service of [env.edges.stream, env.edges.unary, env.cluster.proxy, ...env.liveActors()]) {
            log(`gateway: last output of ${env.serviceName(service)}:\n  ${service.output().slice(-5).join('\n  ')}`);
          }
        }
      }
    }
    log('== 2b. refusal path');
    const refusal = await runRefusalBench(
      env,
      tools.wrk.path,
      nginx.origin,
      settings.saturation,
      settings.runs,
      workDir,
      log,
    );
    const edgeStagesOf = new Map<K6Result, EdgeStages>();
    for (const level of settings.latency) {
      for (let run = 1; run <= settings.runs; run++) {
        for (const spec of specs) {
          await calm();
          const edge = spec.edge;
          const fixedRate = async () => {
            const stages = edge
              ? await startEdgeStageMeter({ edge: spec.wrk.origin, proxy: env.cluster.proxy.urls.http! })
              : undefined;
            const meter = new CpuMeter();
            const k6Result: K6Result = await runK6(
              tools.k6.path,
              workDir,
              { url: `${spec.wrk.origin}${spec.wrk.target}`, keys: spec.wrk.keys, headers: spec.wrk.headers ?? {} },
              level,
            );
            k6Result.cpu = meter.stop();
            if (stages) edgeStagesOf.set(k6Result, await stages.stop());
            return k6Result;
          };
          const result =
            run === 1 && edge
              ? await env.profile(
                  `gateway, ${spec.name} at ${level.rate}/s`,
                  [edge, env.cluster.proxy, ...env.liveActors()],
                  fixedRate,
                )
              : await fixedRate();
          const key = `${spec.name}@${level.rate}`;
          atRate.set(key, [...(atRate.get(key) ?? []), result]);
          log(
            `gateway: k6  ${spec.name.padEnd(16)} run ${run}: ${level.rate} req/s offered, ` +
              `p50 ${result.latencyMs.p50.toFixed(2)} ms, p99 ${result.latencyMs.p99.toFixed(2)} ms, ` +
              `dropped ${result.dropped}, failed ${(result.failedShare * 100).toFixed(2)}%`,
          );
        }
      }
    }

    const targets: GatewayTargetFigures[] = specs.map((spec) => {
      const sat = saturation.get(spec.name)!;
      return {
        name: spec.name,
        description: spec.description,
        saturation: {
          okPerSecond: bestOf(sat, (run) => run.okPerSecond, 'max'),
          p50Ms: bestOf(sat, (run) => run.latencyMs.p50, 'min'),
          p99Ms: bestOf(sat, (run) => run.latencyMs.p99, 'min'),
          runs: sat,
        },
        warmUp: warmUps.get(spec.wrk),
        atRates: settings.latency.map((level) => {
          const runs = atRate.get(`${spec.name}@${level.rate}`) ?? [];
          return {
            rate: level.rate,
            p50Ms: bestOf(runs, (run) => run.latencyMs.p50, 'min'),
            p90Ms: bestOf(runs, (run) => run.latencyMs.p90, 'min'),
            p99Ms: bestOf(runs, (run) => run.latencyMs.p99, 'min'),
            maxMs: bestOf(runs, (run) => run.latencyMs.max, 'min'),
            runs,
            edgeStages: runs.flatMap((run) => edgeStagesOf.get(run) ?? []),
          };
        }),
      };
    });
    const byName = (name: GatewayTargetName) => targets.find((target) => target.name === name)!;
    const direct = byName('direct');
    const nginxFigures = byName('nginx');
    const stream = byName('gateway-stream');
    const unary = byName('gateway-unary');
    // The faster transport is the one with the higher saturated throughput (docs/benchmarks.md: keep the faster).
    const streamFaster = stream.saturation.okPerSecond >= unary.saturation.okPerSecond;
    const compare = (figures: GatewayTargetFigures, transport: 'stream' | 'unary', faster: boolean) => ({
      transport,
      faster,
      added: figures.atRates.map((level, index) => ({
        rate: level.rate,
        p50Ms: level.p50Ms - direct.atRates[index]!.p50Ms,
        p99Ms: level.p99Ms - direct.atRates[index]!.p99Ms,
        p99VsNginxMs: level.p99Ms - nginxFigures.atRates[index]!.p99Ms,
      })),
      throughputVsNginx: ratio(figures.saturation.okPerSecond, nginxFigures.saturation.okPerSecond),
      throughputVsDirect: ratio(figures.saturation.okPerSecond, direct.saturation.okPerSecond),
    });
    const transports: TransportComparison[] = [
      compare(stream, 'stream', streamFaster),
      compare(unary, 'unary', !streamFaster),
    ];
    const kept = transports.find((transport) => transport.faster)!;
    const saturationJudged = ![streamFaster ? stream : unary, nginxFigures].some(refusedAtSaturation);
    const cpuRows = [
      cpuPerRequest('bare node:http', calibrationRuns[0]),
      ...targets.map((target) => cpuPerRequest(target.name, target.saturation.runs[0])),
    ];
    // Gateway CPU per answer against nginx's path, the sandbox left out on both sides (issue 17).
    const serverWithoutSandbox = (row: CpuPerRequest | undefined) =>
      (row?.serverMicros ?? 0) - (row?.microsByProcess['platform-sandbox'] ?? 0);
    const keptRow = cpuRows.find((row) => row.target === (streamFaster ? 'gateway-stream' : 'gateway-unary'));
    const nginxRow = cpuRows.find((row) => row.target === 'nginx');
    const cpuVsNginx = ratio(serverWithoutSandbox(keptRow), serverWithoutSandbox(nginxRow));
    // The same without the MongoDB stand-in: FerretDB's SQLite backend scans a collection on every update, so its
    // share follows how full the bench left it, not the gateway (docs/benchmarks.md, "FerretDB in the figures").
    const withoutDatabase = (row: CpuPerRequest | undefined) =>
      serverWithoutSandbox(row) - (row?.microsByProcess['ferretdb'] ?? 0);
    const cpuVsNginxWithoutDatabase = ratio(withoutDatabase(keptRow), withoutDatabase(nginxRow));
    const skeletonRow = cpuRows.find((row) => row.target === 'skeleton');
    const vsSkeleton = {
      cpu: ratio(withoutDatabase(keptRow), withoutDatabase(skeletonRow)),
      throughput: ratio(
        (streamFaster ? stream : unary).saturation.okPerSecond,
        byName('skeleton').saturation.okPerSecond,
      ),
    };
    const shopFigures = byName('gateway-video-shop');
    const providers: ProviderComparison = {
      rows: [
        {
          provider: 'video-ads',
          target: 'gateway-stream',
          request: `GET ${path}`,
          okPerSecond: stream.saturation.okPerSecond,
          cpu: cpuRows.find((row) => row.target === 'gateway-stream')!,
        },
        {
          provider: 'video-shop',
          target: 'gateway-video-shop',
          request: `GET ${shop.path} (signed)`,
          okPerSecond: shopFigures.saturation.okPerSecond,
          cpu: cpuRows.find((row) => row.target === 'gateway-video-shop')!,
        },
      ],
    };
    return {
      settings: { ...settings, keys: keys.length, nginxKeys: nginxKeys.length },
      keyRate: { rps: env.plans.load.rps, burst: env.plans.load.burst },
      tools: { wrk: tools.wrk.version, k6: tools.k6.version, nginx: tools.nginx.version },
      nginxConfig: nginx.config,
      calibration: {
        okPerSecond: bestOf(calibrationRuns, (run) => run.okPerSecond, 'max'),
        p50Ms: bestOf(calibrationRuns, (run) => run.latencyMs.p50, 'min'),
        runs: calibrationRuns,
        warmUp: warmUps.get(calibrationTarget),
      },
      targets,
      cpuPerRequest: cpuRows,
      transports,
      providers,
      refusal,
      cpuVsNginx,
      cpuVsNginxWithoutDatabase,
      vsSkeleton,
      targetsMet: {
        addedP99AtRate: latencyTargetLevel(kept).p99Ms <= TARGET_BOUNDS.addedP99Ms,
        throughputVsNginx: saturationJudged ? kept.throughputVsNginx >= TARGET_BOUNDS.throughputVsNginx : null,
        cpuVsNginx: saturationJudged ? cpuVsNginx <= TARGET_BOUNDS.cpuVsNginx : null,
        refusalVsNginx: refusal.met,
      },
    };
  } finally {
    await Promise.all([bare.stop(), nginx.stop(), skeleton.stop()]);
  }
}
