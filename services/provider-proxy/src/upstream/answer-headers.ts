const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
const TO_LOWER = 0x20;

/**
 * An answer's headers as undici hands them over (name, value, name, value, ... as bytes), read by name when asked.
 * The proxy reads four or five of them per answer; decoding every name and value into an object cost more than
 * the lookups, and keyed stores into a fresh object of header names were megamorphic.
 */
export class AnswerHeaders {
  static readonly NONE = new AnswerHeaders([]);

  constructor(private readonly raw: readonly Buffer[]) {}

  /** The first value of the header `lowerCaseName` (names match without regard to case), or '' when absent. */
  get(lowerCaseName: string): string {
    const raw = this.raw;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (sameName(raw[i]!, lowerCaseName)) return raw[i + 1]!.toString('utf8');
    }
    return '';
  }
}

function sameName(candidate: Buffer, lowerCaseName: string): boolean {
  if (candidate.length !== lowerCaseName.length) return false;
  for (let j = 0; j < candidate.length; j++) {
    const byte = candidate[j]!;
    const folded = byte >= UPPER_A && byte <= UPPER_Z ? byte + TO_LOWER : byte;
    if (folded !== lowerCaseName.charCodeAt(j)) return false;
  }
  return true;
}
