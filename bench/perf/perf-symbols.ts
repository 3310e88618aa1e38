/** One line of `perf report --no-children --sort symbol -g none --stdio`: a symbol and its share of the samples. */
export interface SymbolShare {
  percent: number;
  /** `k` for the kernel, `.` for user space. */
  space: 'k' | '.';
  symbol: string;
}

const LINE = /^\s*(\d+(?:\.\d+)?)%\s+\[([k.])\]\s+(.*?)\s*$/;
/** Columns some perf versions print after the symbol (IPC and its coverage, `-` when the CPU gives none). */
const EMPTY_TRAILING_COLUMNS = /(?:\s{2,}-)+$/;

export function parsePerfReport(text: string): SymbolShare[] {
  const shares: SymbolShare[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const symbol = match[3]!.replace(EMPTY_TRAILING_COLUMNS, '');
    shares.push({ percent: Number(match[1]), space: match[2] as 'k' | '.', symbol });
  }
  return shares;
}

/** Where a sample's time went, coarsely: which code, or which part of the runtime. */
export const CATEGORIES = [
  'own code (the service, or the skeleton)',
  'undici',
  'grpc-js',
  'nats.js',
  'MongoDB driver',
  "node's JavaScript",
  'other JavaScript',
  'V8 builtins (inline caches, promises, calls)',
  'collector',
  "V8 runtime, node's C++ and libc",
  'kernel',
] as const;
export type Category = (typeof CATEGORIES)[number];

const COLLECTOR =
  /Scaveng|Heap::|ConcurrentMarking|MarkCompact|Marking|Sweep|Evacuat|Compactor|GCTracer|MinorGC|MajorGC/;

/**
 * JIT-compiled functions are named `JS:*name path:line:col` (`--perf-basic-prof-only-functions`); without that flag
 * they fall under `other JavaScript` as bare addresses.
 */
export function categoryOf({ space, symbol }: SymbolShare): Category {
  if (space === 'k') return 'kernel';
  if (symbol.startsWith('JS:')) {
    if (/node_modules\/undici\//.test(symbol)) return 'undici';
    if (/node_modules\/@grpc\//.test(symbol)) return 'grpc-js';
    if (/node_modules\/nats\//.test(symbol)) return 'nats.js';
    if (/node_modules\/(mongodb|mongoose|bson)\//.test(symbol)) return 'MongoDB driver';
    if (!symbol.includes('node_modules/') && /\/(services|libs|bench\/baselines)\//.test(symbol)) {
      return 'own code (the service, or the skeleton)';
    }
    if (/ node:/.test(symbol)) return "node's JavaScript";
    return 'other JavaScript';
  }
  if (symbol.startsWith('Builtins_')) return 'V8 builtins (inline caches, promises, calls)';
  if (COLLECTOR.test(symbol)) return 'collector';
  if (/^0x[0-9a-f]+$/.test(symbol)) return 'other JavaScript';
  return "V8 runtime, node's C++ and libc";
}

/** Each category's share of the samples, in the order of CATEGORIES; they add up to the report's total. */
export function categoryShares(shares: SymbolShare[]): Record<Category, number> {
  const totals = Object.fromEntries(CATEGORIES.map((category) => [category, 0])) as Record<Category, number>;
  for (const share of shares) totals[categoryOf(share)] += share.percent;
  return totals;
}
