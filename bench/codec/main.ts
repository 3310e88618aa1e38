/**
 * `npm run bench:codec -- [--messages 4000] [--rounds 8] [--passes 10]`
 *
 * CPU time per frame to encode and decode the Exchange stream's messages (every forwarded request crosses it twice):
 * the codecs the services use (libs/proto/src/reflected-codec.ts) against proto-loader's protobufjs codecs in the same
 * run, over messages built as edge-auth and provider-proxy build them (frames.ts). Prints a table and writes
 * reports/codec-<time>.{md,json}.
 */
import { loadSync, type ServiceDefinition } from '@grpc/proto-loader';
import { LOADER_OPTIONS, providerProxyService } from '@gateway/proto';
import { join } from 'node:path';
import { describeMachine } from '../lib/machine';
import { reportStamp, runMain, writeReportFiles } from '../lib/report-files';
import { median, ratio } from '../lib/stats';
import {
  requestCodec,
  responseCodec,
  timeCodecs,
  type CodecRounds,
  type ExchangeSerializers,
  type TimingOptions,
} from './codec-timing';
import { clientMessages, serverMessages } from './frames';

const PROTO_ROOT = join(__dirname, '..', '..', 'libs', 'proto', 'proto');
const CONTRACT_FILE = 'gateway/provider/v1/provider_proxy.proto';
const SERVICE = 'gateway.provider.v1.ProviderProxy';

function positiveInteger(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: a positive integer`);
  return value;
}

interface SideReport {
  message: string;
  compiled: CodecRounds;
  protobufjs: CodecRounds;
}

function rows(side: SideReport): string[] {
  const row = (pass: string, pick: (rounds: CodecRounds) => number[]) => {
    const compiled = median(pick(side.compiled));
    const protobufjs = median(pick(side.protobufjs));
    const range = (values: number[]) => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`;
    return (
      `| ${side.message}, ${pass} | ${Math.round(compiled)} (${range(pick(side.compiled))}) | ` +
      `${Math.round(protobufjs)} (${range(pick(side.protobufjs))}) | ${ratio(compiled, protobufjs).toFixed(3)}x |`
    );
  };
  return [row('encode', (rounds) => rounds.encodeNs), row('decode', (rounds) => rounds.decodeNs)];
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const count = positiveInteger(argv, '--messages', 4_000);
  const options: TimingOptions = {
    rounds: positiveInteger(argv, '--rounds', 8),
    passes: positiveInteger(argv, '--passes', 10),
  };
  const startedAt = new Date().toISOString();
  const machine = describeMachine();
  const compiled = providerProxyService().Exchange as unknown as ExchangeSerializers;
  const protobufjs = (
    loadSync(CONTRACT_FILE, { ...LOADER_OPTIONS, includeDirs: [PROTO_ROOT] })[SERVICE] as ServiceDefinition
  ).Exchange as unknown as ExchangeSerializers;
  const sides: SideReport[] = [];
  for (const [message, messages, codecOf] of [
    ["edge-auth's ClientFrames", clientMessages(count), requestCodec],
    ["provider-proxy's ServerFrames", serverMessages(count), responseCodec],
  ] as const) {
    const codecs = { compiled: codecOf(compiled), protobufjs: codecOf(protobufjs) };
    // A first round warms both up (JIT), so that neither is measured while it is compiled.
    timeCodecs(codecs, messages, { rounds: 1, passes: options.passes });
    const timed = timeCodecs(codecs, messages, options);
    sides.push({ message, compiled: timed.compiled!, protobufjs: timed.protobufjs! });
  }
  const markdown = [
    `# Exchange frames: CPU per frame, compiled codecs against protobufjs — ${startedAt}`,
    '',
    `${machine.nproc} cores (${machine.cpuModel}), Node ${machine.node}, load average ${machine.loadAverageAtStart} ` +
      `at the start. ${count} messages of one to four frames, each encoded and decoded ${options.passes} times a ` +
      `round, ${options.rounds} rounds after one to warm up; the two codecs take turns within a round. Median ns of ` +
      'CPU per frame (fastest-slowest round).',
    '',
    '| message, pass | compiled | protobufjs | compiled / protobufjs |',
    '|---|---|---|---|',
    ...sides.flatMap(rows),
    '',
  ].join('\n');
  await writeReportFiles(
    'codec',
    reportStamp(startedAt),
    markdown,
    { startedAt, machine, count, options, sides },
    (m) => console.log(m),
  );
}

runMain(main);
