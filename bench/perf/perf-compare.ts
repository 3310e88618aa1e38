import { CATEGORIES, categoryOf, type Category, type SymbolShare } from './perf-symbols';

/** One process's profile in µs per answer: its CPU per answer and every symbol's self time. */
export interface ProcessProfile {
  service: string;
  microsPerAnswer: number;
  shares: SymbolShare[];
}

/** A symbol's self time per answer on both sides; a side that never ran it has 0. */
export interface SymbolGap {
  symbol: string;
  category: Category;
  gatewayMicros: number;
  skeletonMicros: number;
}

/** A gateway process against the skeleton process that does its job with none of its logic. */
export interface SkeletonComparison {
  gateway: string;
  skeleton: string;
  gatewayMicros: number;
  skeletonMicros: number;
  categories: { category: Category; gatewayMicros: number; skeletonMicros: number }[];
  /** The symbols where the gateway spends the most more than the skeleton, largest gap first. */
  widest: SymbolGap[];
}

const micros = (share: SymbolShare, microsPerAnswer: number) => (share.percent / 100) * microsPerAnswer;

/**
 * Sets a gateway process against its skeleton twin per category and per symbol, both in µs per answer, so that the
 * runtime's own symbols (builtins, node's C++, the kernel) that both run compare by name and the gateway's own code
 * shows as what the skeleton does not run at all.
 */
export function compareWithSkeleton(
  gateway: ProcessProfile,
  skeleton: ProcessProfile,
  widestCount: number,
): SkeletonComparison {
  const bySymbol = new Map<string, SymbolGap>();
  const gapOf = (share: SymbolShare) => {
    const key = `${share.space} ${share.symbol}`;
    let gap = bySymbol.get(key);
    if (gap === undefined) {
      gap = { symbol: share.symbol, category: categoryOf(share), gatewayMicros: 0, skeletonMicros: 0 };
      bySymbol.set(key, gap);
    }
    return gap;
  };
  for (const share of gateway.shares) gapOf(share).gatewayMicros += micros(share, gateway.microsPerAnswer);
  for (const share of skeleton.shares) gapOf(share).skeletonMicros += micros(share, skeleton.microsPerAnswer);

  const categories = CATEGORIES.map((category) => ({ category, gatewayMicros: 0, skeletonMicros: 0 }));
  for (const gap of bySymbol.values()) {
    const row = categories[CATEGORIES.indexOf(gap.category)]!;
    row.gatewayMicros += gap.gatewayMicros;
    row.skeletonMicros += gap.skeletonMicros;
  }
  const widest = [...bySymbol.values()]
    .filter((gap) => gap.gatewayMicros > gap.skeletonMicros)
    .sort((a, b) => b.gatewayMicros - b.skeletonMicros - (a.gatewayMicros - a.skeletonMicros))
    .slice(0, widestCount);
  return {
    gateway: gateway.service,
    skeleton: skeleton.service,
    gatewayMicros: gateway.microsPerAnswer,
    skeletonMicros: skeleton.microsPerAnswer,
    categories,
    widest,
  };
}
