import { reportRun } from './perf-report.fixture';
import { renderPerfMarkdown } from './perf-report';
import { parsePerfArgs } from './perf-args';
import { CATEGORIES, categoryOf, categoryShares, parsePerfReport, type SymbolShare } from './perf-symbols';

const REPORT = `# Samples: 2K of event 'cpu-clock:ppp'
# Overhead  Symbol
# ........  ......
#
     7.74%  [.] Builtins_FindOrderedHashMapEntry                                  
     5.80%  [k] finish_task_switch.isra.0                                         
     3.54%  [.] JS:*remember /work/main/services/quota-actor/dist/partition/answered-batches.js:67:13
     2.00%  [.] JS:*_resume /work/main/node_modules/undici/lib/dispatcher/client.js:548:18
     1.50%  [.] JS:*sendMessage /work/main/node_modules/@grpc/grpc-js/build/src/server-interceptors.js:663:16
     1.25%  [.] JS:*parse /work/main/node_modules/nats/lib/nats-base-client/parser.js:76:10
     1.00%  [.] JS:*command /work/main/node_modules/mongoose/node_modules/mongodb/lib/sdam/server.js:135:18
     0.75%  [.] JS:*processImmediate node:internal/timers:438:28
     0.50%  [.] v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>
     0.40%  [.] v8::internal::StringTable::Data::FindEntry<v8::internal::Isolate>
     0.30%  [.] 0x00007fbbd78af86e
     0.20%  [.] JS:*decode /work/main/libs/decisions/dist/codec.js:161:13

`;

describe('perf report symbols', () => {
  it('reads each symbol line with its share and space, and nothing from the header', () => {
    const shares = parsePerfReport(REPORT);
    expect(shares).toHaveLength(12);
    expect(shares[0]).toEqual({ percent: 7.74, space: '.', symbol: 'Builtins_FindOrderedHashMapEntry' });
    expect(shares[1]).toEqual({ percent: 5.8, space: 'k', symbol: 'finish_task_switch.isra.0' });
  });

  it('drops the empty IPC columns some perf versions print after the symbol, however wide the symbol column', () => {
    const padded = [
      `     4.10%  [k] finish_task_switch.isra.0${' '.repeat(300)}-      -`,
      `     1.20%  [.] JS:*sizeOf /work/main/libs/proto/dist/reflected-codec.js:89:16${' '.repeat(40)}-      -  `,
    ].join('\n');
    expect(parsePerfReport(padded).map(({ symbol }) => symbol)).toEqual([
      'finish_task_switch.isra.0',
      'JS:*sizeOf /work/main/libs/proto/dist/reflected-codec.js:89:16',
    ]);
  });

  it('puts each symbol in its category', () => {
    const categories = parsePerfReport(REPORT).map(categoryOf);
    expect(categories).toEqual([
      'V8 builtins (inline caches, promises, calls)',
      'kernel',
      'own code (the service, or the skeleton)',
      'undici',
      'grpc-js',
      'nats.js',
      'MongoDB driver',
      "node's JavaScript",
      'collector',
      "V8 runtime, node's C++ and libc",
      'other JavaScript',
      'own code (the service, or the skeleton)',
    ]);
  });

  it('adds the shares up per category, every category present', () => {
    const totals = categoryShares(parsePerfReport(REPORT));
    expect(Object.keys(totals)).toEqual([...CATEGORIES]);
    expect(totals['own code (the service, or the skeleton)']).toBeCloseTo(3.74, 6);
    expect(totals['grpc-js']).toBe(1.5);
    expect(totals['other JavaScript']).toBe(0.3);
    const sum = Object.values(totals).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(24.98, 6);
  });

  it('does not count a dependency that lives under a folder named services as the gateway', () => {
    const share: SymbolShare = {
      percent: 1,
      space: '.',
      symbol: 'JS:*x /work/main/node_modules/foo/services/a.js:1:1',
    };
    expect(categoryOf(share)).toBe('other JavaScript');
  });
});

describe('the command line of bench:perf', () => {
  it('takes bounded whole numbers, inline or as the next argument, and defaults the rest', () => {
    expect(parsePerfArgs(['--seconds', '4', '--top=10'])).toEqual({
      seconds: 4,
      keys: 256,
      connections: 64,
      warmupRuns: 3,
      top: 10,
      skeleton: false,
      keepData: false,
      telemetry: false,
      refusal: false,
    });
    expect(parsePerfArgs(['--skeleton', '--keys=8'])).toMatchObject({ skeleton: true, keys: 8, keepData: false });
    expect(parsePerfArgs(['--keep-data'])).toMatchObject({ skeleton: false, keepData: true });
    expect(parsePerfArgs(['--telemetry'])).toMatchObject({ telemetry: true, skeleton: false });
    expect(parsePerfArgs(['--refusal', '--telemetry'])).toMatchObject({ refusal: true, telemetry: true });
    expect(parsePerfArgs(['-h'])).toBe('help');
  });

  it('refuses what it does not know and numbers out of bounds', () => {
    expect(() => parsePerfArgs(['--service', 'edge-auth'])).toThrow(/unknown argument --service/);
    expect(() => parsePerfArgs(['--seconds', '600'])).toThrow(/from 1 to 60, got "600"/);
    expect(() => parsePerfArgs(['--keys', '2.5'])).toThrow(/whole number/);
    expect(() => parsePerfArgs(['--top'])).toThrow(/got ""/);
    expect(() => parsePerfArgs(['--skeleton=yes'])).toThrow(/unknown argument --skeleton/);
    expect(() => parsePerfArgs(['--refusal', '--skeleton'])).toThrow(/one at a time/);
  });
});

describe('the bench:perf report', () => {
  it('gives each category and each top symbol as a share and as µs of the process’s CPU per answer', () => {
    const shares = parsePerfReport(REPORT);
    const markdown = renderPerfMarkdown({
      ...reportRun(),
      answersPerSecond: 7_812.4,
      processes: [
        {
          service: 'quota-actor',
          pid: 42,
          microsPerAnswer: 20,
          categories: categoryShares(shares),
          top: shares.slice(0, 3),
        },
      ],
    });
    expect(markdown).toContain('Measured run: 7812 2xx answers a second.');
    expect(markdown).toMatch(/^\| quota-actor \| 20\.0 µs \| 3\.7 % \(0\.75 µs\) \| 2\.0 % \(0\.40 µs\) \|/m);
    expect(markdown).toContain('## quota-actor (pid 42): the 3 symbols with the most self time');
    expect(markdown).toContain(
      '| 7.7 % (1.55 µs) | V8 builtins (inline caches, promises, calls) | `Builtins_FindOrderedHashMapEntry` |',
    );
    expect(markdown).toContain('| 5.8 % (1.16 µs) | kernel | `finish_task_switch.isra.0` |');
    expect(markdown).not.toContain('Traced as the chart ships it');
  });

  it('says how the services were traced with --telemetry, and how much they exported', () => {
    const markdown = renderPerfMarkdown({
      ...reportRun('v26'),
      answersPerSecond: 4_121,
      processes: [],
      telemetry: {
        protocol: 'http/protobuf',
        sampler: 'parentbased_traceidratio',
        samplerArg: '0.1',
        exports: 12,
        bytes: 3 * 1024 * 1024,
      },
    });
    expect(markdown).toContain(
      'Traced as the chart ships it (parentbased_traceidratio 0.1, http/protobuf): 12 trace exports of 3072 KiB in all, ' +
        'warm-up included.',
    );
  });
});
