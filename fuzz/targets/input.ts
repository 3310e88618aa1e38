/** A small reader over the fuzzer's bytes: targets build structured inputs from it deterministically. */
export class Input {
  private at = 0;
  constructor(private readonly data: Buffer) {}

  get remaining(): number {
    return this.data.length - this.at;
  }

  byte(): number {
    return this.at < this.data.length ? this.data[this.at++]! : 0;
  }

  bool(): boolean {
    return (this.byte() & 1) === 1;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.byte() % items.length]!;
  }

  /** A string of up to `max` bytes (length prefix), read as latin1 so every byte value reaches the code. */
  string(max = 64): string {
    const length = Math.min(this.byte() % (max + 1), this.remaining);
    const text = this.data.toString('latin1', this.at, this.at + length);
    this.at += length;
    return text;
  }

  /** The rest of the bytes as UTF-8 (invalid sequences become U+FFFD). */
  rest(): string {
    const text = this.data.toString('utf8', this.at);
    this.at = this.data.length;
    return text;
  }
}

/** A property violation: thrown so that Jazzer.js reports the input as a crash. */
export function violated(property: string, details: Record<string, unknown>): never {
  throw new Error(`property violated: ${property}\n${JSON.stringify(details, null, 2)}`);
}

/** Small mutations of a known-good string, so the fuzzer works near the interesting values. */
export function mutate(input: Input, text: string): string {
  let out = text;
  const rounds = input.byte() % 4;
  for (let i = 0; i < rounds; i++) {
    const at = out.length === 0 ? 0 : input.byte() % (out.length + 1);
    switch (input.byte() % 5) {
      case 0:
        out = out.slice(0, at) + input.string(8) + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(at + 1 + (input.byte() % 4));
        break;
      case 2:
        out = out.slice(0, at) + String.fromCharCode(input.byte()) + out.slice(at + 1);
        break;
      case 3:
        out =
          out.slice(0, at) +
          input.pick(['%2F', '%2e', '/', '//', '..', '\\', ';', '%00', '?', '#', 'A']) +
          out.slice(at);
        break;
      default:
        out = at % 2 === 0 ? out.toUpperCase() : out.toLowerCase();
    }
  }
  return out;
}
