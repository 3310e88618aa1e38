/**
 * Characters that change what a reader sees without being seen themselves: format characters (zero-width
 * spaces and joiners, bidirectional embeddings, overrides and isolates, the byte-order mark, Unicode tag
 * characters used to smuggle ASCII), control characters other than tab, line feed and carriage return,
 * variation selectors, and line/paragraph separators. Text entered by other people (campaign names, notes) can
 * hide instructions with them (spec 4.3 rule 6), so each is replaced by a visible [U+XXXX] marker.
 */
const INVISIBLE =
  /[\p{Cf}\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;

/** Also matches the JSON escape of any character, which may stand for an invisible one once parsed. */
const MAYBE_INVISIBLE_RAW =
  /[\p{Cf}\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\uFE00-\uFE0F\u{E0100}-\u{E01EF}]|\\u/u;

export function neutraliseText(text: string): string {
  return text.replace(INVISIBLE, (char) => `[U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

/**
 * Neutralises every string (values and keys) of a parsed JSON value. `rawText`, the text it was parsed from,
 * lets the common case skip the walk: without such characters or \u escapes there is nothing to replace.
 */
export function neutraliseJson<T>(value: T, rawText?: string): T {
  if (rawText !== undefined && !MAYBE_INVISIBLE_RAW.test(rawText)) return value;
  return walk(value) as T;
}

/** Like `target[key] = value`, but a "__proto__" key from platform data stays a plain property. */
export function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return neutraliseText(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) defineEntry(out, neutraliseText(key), walk(item));
    return out;
  }
  return value;
}
