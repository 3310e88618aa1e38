export interface PerfArgs {
  /** How long perf records each process, inside a load run a few seconds longer. */
  seconds: number;
  keys: number;
  connections: number;
  /** Load runs of 6 s before the measured one. */
  warmupRuns: number;
  /** Symbols listed per process. */
  top: number;
  /** Also records the design's skeleton under the same load, and sets each process against its skeleton twin. */
  skeleton: boolean;
  /** Keeps each process's perf.data under reports/perf-<time>-data/ for `perf report` by hand. */
  keepData: boolean;
  /** Runs the services traced as the Helm chart runs them once it has an OTLP endpoint (the SDK preloaded, sampling). */
  telemetry: boolean;
  /**
   * The refusal bench's load instead of the forward one (keys far over their rate, refusals held at the edge):
   * records edge-auth, then a bare node:http server writing edge-auth's own refusal, and sets one against the other.
   */
  refusal: boolean;
}

export const PERF_USAGE = [
  'usage: npm run bench:perf -- [--seconds 8] [--keys 256] [--connections 64] [--warmup-runs 3] [--top 25]',
  '                              [--skeleton | --refusal] [--keep-data] [--telemetry]',
  '  records edge-auth, provider-proxy and the quota-actor with perf under the gateway benchmark forward load;',
  "  --skeleton records the design's skeleton (its edge, proxy and decider) under the same load after them;",
  '  --keep-data keeps each perf.data in reports/perf-<time>-data/ (perf report -i <file> --children, by hand);',
  "  --telemetry runs the gateway's services traced as the Helm chart runs them with an OTLP endpoint (the SDK",
  "  preloaded, the chart's sampler), exporting to a receiver in the bench process;",
  '  --refusal records edge-auth under the refusal load instead (keys far over their rate, refusals held at the',
  "  edge), then a bare node:http server writing edge-auth's own refusal under the same load, and sets them side by side",
].join('\n');

type Switch = 'skeleton' | 'keepData' | 'telemetry' | 'refusal';
const SWITCHES: Record<string, Switch> = {
  '--skeleton': 'skeleton',
  '--keep-data': 'keepData',
  '--telemetry': 'telemetry',
  '--refusal': 'refusal',
};

const FLAGS: Record<string, { key: Exclude<keyof PerfArgs, Switch>; min: number; max: number }> = {
  '--seconds': { key: 'seconds', min: 1, max: 60 },
  '--keys': { key: 'keys', min: 1, max: 1024 },
  '--connections': { key: 'connections', min: 1, max: 512 },
  '--warmup-runs': { key: 'warmupRuns', min: 0, max: 10 },
  '--top': { key: 'top', min: 1, max: 200 },
};

/** The command line of `npm run bench:perf`, or 'help'; throws with the reason on anything else. */
export function parsePerfArgs(argv: string[]): PerfArgs | 'help' {
  const args: PerfArgs = {
    seconds: 8,
    keys: 256,
    connections: 64,
    warmupRuns: 3,
    top: 25,
    skeleton: false,
    keepData: false,
    telemetry: false,
    refusal: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--help' || flag === '-h') return 'help';
    const on = SWITCHES[flag];
    if (on !== undefined && inline === undefined) {
      args[on] = true;
      continue;
    }
    const spec = FLAGS[flag];
    if (!spec) throw new Error(`unknown argument ${flag}\n${PERF_USAGE}`);
    const value = inline ?? argv[++i];
    const number = Number(value);
    if (value === undefined || !Number.isInteger(number) || number < spec.min || number > spec.max) {
      throw new Error(`${flag} takes a whole number from ${spec.min} to ${spec.max}, got "${value ?? ''}"`);
    }
    args[spec.key] = number;
  }
  if (args.refusal && args.skeleton) {
    throw new Error(
      `--refusal sets edge-auth against a bare server, --skeleton the forward path against the skeleton: one at a time`,
    );
  }
  return args;
}
