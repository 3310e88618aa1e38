export const COMPARED_SERVICES = ['edge-auth', 'provider-proxy', 'quota-actor'] as const;
export type ComparedService = (typeof COMPARED_SERVICES)[number];

export interface BuildsArgs {
  /** Git refs, or `.` for the working tree; the first is the one the others are set against. */
  builds: string[];
  service: ComparedService;
  rounds: number;
  warmupRounds: number;
  seconds: number;
  keys: number;
  connections: number;
  /** Every process traced as the Helm chart runs them with an OTLP endpoint, each build's with its own preload. */
  telemetry: boolean;
  /**
   * edge-auth under the refusal bench's load (keys far over their rate, refusals held at the edge), its CPU per
   * answer counting every answer, instead of the forward load and its 2xx answers.
   */
  refusal: boolean;
}

export const USAGE = [
  'usage: npm run bench:builds -- --builds <ref>,<ref>[,...] [--service edge-auth|provider-proxy|quota-actor]',
  '                               [--rounds 5] [--warmup-rounds 2] [--seconds 5] [--keys 256] [--connections 64]',
  '                               [--telemetry] [--refusal]',
  '  --builds   git refs to compare, the first being the baseline; . is the working tree with its changes',
  '  --service  the service whose CPU per forwarded answer is compared (default edge-auth)',
  "  --telemetry  every process traced as the Helm chart runs them with an OTLP endpoint (the chart's sampler),",
  "             each build's process with its own build's preload",
  "  --refusal  edge-auth only: the refusal bench's load instead (its keys far over their rate, refusals held at",
  '             the edge), CPU per answer counting every answer',
].join('\n');

const DEFAULTS: Omit<BuildsArgs, 'builds'> = {
  service: 'edge-auth',
  rounds: 5,
  warmupRounds: 2,
  seconds: 5,
  keys: 256,
  connections: 64,
  telemetry: false,
  refusal: false,
};

/** Bounds that keep a comparison finite and on loopback-sized loads. */
const LIMITS: Record<'rounds' | 'warmupRounds' | 'seconds' | 'keys' | 'connections', [number, number]> = {
  rounds: [1, 50],
  warmupRounds: [0, 10],
  seconds: [1, 60],
  keys: [1, 1024],
  connections: [1, 512],
};

const NUMERIC_FLAGS: Record<string, keyof typeof LIMITS> = {
  '--rounds': 'rounds',
  '--warmup-rounds': 'warmupRounds',
  '--seconds': 'seconds',
  '--keys': 'keys',
  '--connections': 'connections',
};

/** The command line of `npm run bench:builds`, or 'help'; throws with the reason on anything else. */
export function parseBuildsArgs(argv: string[]): BuildsArgs | 'help' {
  const args: Omit<BuildsArgs, 'builds'> & { builds?: string[] } = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--help' || flag === '-h') return 'help';
    if ((flag === '--telemetry' || flag === '--refusal') && inline === undefined) {
      args[flag === '--telemetry' ? 'telemetry' : 'refusal'] = true;
      continue;
    }
    if (flag !== '--builds' && flag !== '--service' && !NUMERIC_FLAGS[flag]) {
      throw new Error(`unknown argument ${flag}\n${USAGE}`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === '--builds') {
      const builds = value.split(',').map((ref) => ref.trim());
      if (builds.some((ref) => ref === '' || ref.startsWith('-')))
        throw new Error(`--builds: empty or bad ref in "${value}"`);
      if (new Set(builds).size !== builds.length) throw new Error(`--builds names a ref twice: "${value}"`);
      args.builds = builds;
    } else if (flag === '--service') {
      if (!COMPARED_SERVICES.includes(value as ComparedService)) {
        throw new Error(`--service takes ${COMPARED_SERVICES.join('|')}, got "${value}"`);
      }
      args.service = value as ComparedService;
    } else {
      const name = NUMERIC_FLAGS[flag]!;
      const [min, max] = LIMITS[name];
      const number = Number(value);
      if (!Number.isInteger(number) || number < min || number > max) {
        throw new Error(`${flag} takes a whole number from ${min} to ${max}, got "${value}"`);
      }
      args[name] = number;
    }
  }
  if (!args.builds || args.builds.length < 2) throw new Error(`--builds needs at least two refs\n${USAGE}`);
  if (args.refusal && args.service !== 'edge-auth') {
    throw new Error(`--refusal compares edge-auth, which answers the refusals it holds; got --service ${args.service}`);
  }
  return { ...args, builds: args.builds };
}
