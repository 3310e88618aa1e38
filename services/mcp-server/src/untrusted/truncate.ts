import { defineEntry } from './neutralise';

export interface Truncation {
  /** The value to return: the input itself, or a copy with its record lists shortened. */
  value: unknown;
  truncated: boolean;
  /** Characters of the compact JSON of the input. */
  originalChars: number;
  /** Characters of the compact JSON of `value`. */
  returnedChars: number;
  /** The shortened record list (dotted path, e.g. data.list), its kept and original lengths. */
  records?: { path: string; returned: number; total: number };
}

type Path = (string | number)[];

interface Candidate {
  path: Path;
  array: unknown[];
  /** Compact JSON length of the array. */
  chars: number;
}

/** Lists below this many characters are not worth cutting; something bigger dominates the answer. */
const MIN_CANDIDATE_CHARS = 256;
const MAX_ROUNDS = 8;

/**
 * Cuts a JSON value to at most `maxChars` characters of compact JSON at record boundaries (spec 4.3 rule 4): the
 * largest array (for platform answers the record list, e.g. data.list) keeps as many whole leading records as fit;
 * everything else (envelope, page_info) stays as it is, so the result is valid JSON of the same shape. When one
 * list is not enough the next largest is cut, and when nothing can make it fit the value becomes null.
 */
export function truncateJson(input: unknown, maxChars: number, serialized = JSON.stringify(input)): Truncation {
  const originalChars = serialized?.length ?? 0;
  if (originalChars <= maxChars) {
    return { value: input, truncated: false, originalChars, returnedChars: originalChars };
  }
  let value = input;
  let chars = originalChars;
  let records: Truncation['records'];
  const cut = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS && chars > maxChars; round++) {
    const candidate = largestArray(value, cut);
    if (!candidate) break;
    const key = candidate.path.join('.');
    cut.add(key);
    const budget = maxChars - (chars - candidate.chars);
    const kept = leadingRecordsWithin(candidate.array, budget);
    value = replaceAt(value, candidate.path, candidate.array.slice(0, kept.count));
    chars = chars - candidate.chars + kept.chars;
    records ??= { path: key, returned: kept.count, total: candidate.array.length };
  }
  if (chars > maxChars) {
    return { value: null, truncated: true, originalChars, returnedChars: 4 };
  }
  return { value, truncated: true, originalChars, returnedChars: chars, ...(records ? { records } : {}) };
}

/** How many leading items fit in `budget` characters of "[a,b,...]", and the length of that array's JSON. */
function leadingRecordsWithin(array: unknown[], budget: number): { count: number; chars: number } {
  let chars = 2; // []
  let count = 0;
  for (const item of array) {
    const next = chars + (count > 0 ? 1 : 0) + (JSON.stringify(item)?.length ?? 4);
    if (next > budget) break;
    chars = next;
    count++;
  }
  return { count, chars };
}

function largestArray(root: unknown, exclude: ReadonlySet<string>): Candidate | undefined {
  let best: Candidate | undefined;
  const path: Path = [];
  // Sums the compact JSON length bottom-up (the same count as JSON.stringify) in one walk.
  const visit = (value: unknown): number => {
    if (Array.isArray(value)) {
      let chars = 2 + Math.max(0, value.length - 1);
      for (let index = 0; index < value.length; index++) {
        path.push(index);
        chars += visit(value[index]);
        path.pop();
      }
      if (chars >= MIN_CANDIDATE_CHARS && value.length > 0 && !exclude.has(path.join('.'))) {
        if (!best || chars > best.chars || (chars === best.chars && path.length < best.path.length)) {
          best = { path: [...path], array: value, chars };
        }
      }
      return chars;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      let chars = 2 + Math.max(0, entries.length - 1);
      for (const [key, item] of entries) {
        path.push(key);
        chars += JSON.stringify(key).length + 1 + visit(item);
        path.pop();
      }
      return chars;
    }
    return JSON.stringify(value)?.length ?? 4;
  };
  visit(root);
  return best;
}

/** A copy of `root` with the value at `path` replaced; containers along the path are copied, nothing else. */
function replaceAt(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = root.slice();
    copy[head as number] = replaceAt(root[head as number], rest, replacement);
    return copy;
  }
  const source = root as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(source)) defineEntry(copy, key, item);
  defineEntry(copy, head as string, replaceAt(source[head as string], rest, replacement));
  return copy;
}
