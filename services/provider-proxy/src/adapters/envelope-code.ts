/**
 * The error code of a JSON envelope (`field` at the top level, a number or a string), or undefined when it is absent,
 * of another type, or the body is not a JSON object.
 *
 * Read by scanning the envelope's top-level members up to `field`, without parsing the rest: every whole platform
 * answer up to 16 KiB is checked for a token error, and the envelopes put the code first ({"code":0,"message":...,
 * "data":{...}}), where JSON.parse built the whole answer to read one field (11 µs at 3 KiB, 55 µs at 16 KiB, more
 * than the rest of provider-proxy's work on the answer). Nested values are skipped byte by byte, strings with their
 * escapes. Unlike JSON.parse it takes the first of duplicate members, does not look at the bytes after the member it
 * found, and does not check the members it skips (a bracket of the wrong kind, or a bare word, passes): it reads a
 * code, it does not validate the answer.
 */
export function envelopeCode(body: Buffer, field: string): number | string | undefined {
  const scanner = new EnvelopeScanner(body);
  return scanner.memberValue(field);
}

const QUOTE = 0x22;
const MINUS = 0x2d;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

class EnvelopeScanner {
  private at = 0;

  constructor(private readonly bytes: Buffer) {}

  memberValue(field: string): number | string | undefined {
    this.skipSpace();
    if (this.bytes[this.at] !== OPEN_BRACE) return undefined;
    this.at++;
    this.skipSpace();
    if (this.bytes[this.at] === CLOSE_BRACE) return undefined;
    for (;;) {
      this.skipSpace();
      const name = this.readString();
      if (name === undefined) return undefined;
      this.skipSpace();
      if (this.bytes[this.at] !== COLON) return undefined;
      this.at++;
      this.skipSpace();
      if (name === field) return this.readScalar();
      if (!this.skipValue()) return undefined;
      this.skipSpace();
      const next = this.bytes[this.at++];
      if (next === COMMA) continue;
      return undefined;
    }
  }

  /** A string or a number at the cursor, as JSON.parse reads it; undefined for any other value or bad JSON. */
  private readScalar(): number | string | undefined {
    const first = this.bytes[this.at];
    if (first === QUOTE) return this.readString();
    if (first !== MINUS && !(first !== undefined && first >= 0x30 && first <= 0x39)) return undefined;
    const start = this.at;
    while (this.at < this.bytes.length && isNumberByte(this.bytes[this.at]!)) this.at++;
    return parseJson<number>(this.bytes.toString('latin1', start, this.at));
  }

  /** The string at the cursor (which must be its opening quote), decoded; the cursor moves past its closing quote. */
  private readString(): string | undefined {
    if (this.bytes[this.at] !== QUOTE) return undefined;
    const start = this.at;
    if (!this.skipString()) return undefined;
    return parseJson<string>(this.bytes.toString('utf8', start, this.at));
  }

  private skipString(): boolean {
    this.at++;
    while (this.at < this.bytes.length) {
      const byte = this.bytes[this.at++]!;
      if (byte === QUOTE) return true;
      if (byte === BACKSLASH) this.at++;
      // A raw control character is not allowed inside a JSON string.
      else if (byte < 0x20) return false;
    }
    return false;
  }

  /** Moves past the value at the cursor; false when it cannot be one (the envelope is then not read). */
  private skipValue(): boolean {
    const first = this.bytes[this.at];
    if (first === QUOTE) return this.skipString();
    if (first === OPEN_BRACE || first === OPEN_BRACKET) return this.skipNested();
    const start = this.at;
    while (this.at < this.bytes.length && isBareValueByte(this.bytes[this.at]!)) this.at++;
    return this.at > start;
  }

  /** An object or array, nested ones and strings included, by counting its brackets outside strings. */
  private skipNested(): boolean {
    let depth = 0;
    while (this.at < this.bytes.length) {
      const byte = this.bytes[this.at];
      if (byte === QUOTE) {
        if (!this.skipString()) return false;
        continue;
      }
      this.at++;
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return true;
      }
    }
    return false;
  }

  private skipSpace(): void {
    while (this.at < this.bytes.length && isSpace(this.bytes[this.at]!)) this.at++;
  }
}

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function isNumberByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || byte === MINUS || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45
  );
}

/** Numbers, true, false and null: everything up to the next separator or space. */
function isBareValueByte(byte: number): boolean {
  return byte !== COMMA && byte !== CLOSE_BRACE && byte !== CLOSE_BRACKET && !isSpace(byte) && byte !== QUOTE;
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
