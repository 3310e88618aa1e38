import { randomBytes } from 'node:crypto';

/**
 * JSON.parse turns an integer above 2^53 into the nearest double, so a 64-bit id written as a number
 * (7497369832011204610) would come back with other digits once the answer is serialised again. Such numbers are
 * read as marked strings instead: the text passed on gets the platform's digits back exactly (restoreText), and
 * the structured value holds them as plain digit strings (restoreValue), the only exact form a JSON value in
 * JavaScript can carry.
 */
export interface LosslessJson {
  value: unknown;
  /** The compact JSON of (a part of) `value` with every protected number written back as the platform wrote it. */
  restoreText(json: string): string;
  /** `value` (or a part of it) with every protected number as a plain string of its digits. */
  restoreValue<T>(value: T): T;
}

/** More than 15 digits in a row: the only numbers that can lose digits, and a cheap test for the common case. */
const LONG_DIGITS = /\d{16}/;

/** Parses JSON text, keeping numbers a double cannot hold exactly; undefined when the text is not JSON. */
export function parseLossless(raw: string, nonce = randomBytes(6).toString('hex')): LosslessJson | undefined {
  const plain: LosslessJson = { value: undefined, restoreText: (json) => json, restoreValue: (value) => value };
  if (!LONG_DIGITS.test(raw)) {
    try {
      return { ...plain, value: JSON.parse(raw) as unknown };
    } catch {
      return undefined;
    }
  }
  // The platform's text must be JSON as it is: a malformed number token wrapped in a marked string would parse,
  // and restoring it would hand the caller text that is not JSON (found by the mcp-truncate fuzz target).
  try {
    JSON.parse(raw);
  } catch {
    return undefined;
  }
  const marker = `~exact-number-${nonce}~`;
  const protectedText = protectLongNumbers(raw, marker);
  let value: unknown;
  try {
    value = JSON.parse(protectedText);
  } catch {
    return undefined;
  }
  if (protectedText === raw) return { ...plain, value };
  const quoted = new RegExp(`"${marker}(-?[0-9][0-9.eE+-]*)"`, 'g');
  return {
    value,
    restoreText: (json) => json.replace(quoted, '$1'),
    restoreValue: (part) => unmark(part, marker) as typeof part,
  };
}

/** Wraps each number token outside strings that a double would change in a marked string. */
function protectLongNumbers(raw: string, marker: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
      continue;
    }
    if (char === 0x22) {
      inString = true;
      continue;
    }
    if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      let end = i + 1;
      while (end < raw.length && /[0-9.eE+-]/.test(raw[end]!)) end++;
      const token = raw.slice(i, end);
      if (losesDigits(token)) {
        out += `${raw.slice(from, i)}"${marker}${token}"`;
        from = end;
      }
      i = end - 1;
    }
  }
  return from === 0 ? raw : out + raw.slice(from);
}

function losesDigits(token: string): boolean {
  const digits = token.replace(/^-/, '').split(/[eE]/)[0]!.replace('.', '').replace(/^0+/, '');
  if (digits.length <= 15) return false;
  const number = Number(token);
  if (!Number.isFinite(number)) return true;
  if (/^-?\d+$/.test(token)) return !Number.isSafeInteger(number);
  return true;
}

function unmark(value: unknown, marker: string): unknown {
  if (typeof value === 'string') return value.startsWith(marker) ? value.slice(marker.length) : value;
  if (Array.isArray(value)) return value.map((item) => unmark(item, marker));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: unmark(item, marker),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
