/**
 * CPU time per frame to encode and to decode the Exchange messages, for each codec under test: the codecs take
 * turns within every round, so a machine that slows down slows them alike (main.ts reports the medians and the ratio).
 */

export interface FrameCodec {
  encode(message: object): Buffer;
  decode(bytes: Buffer): object;
}

/** The Exchange method's serializers, as proto-loader's method definitions and the services' contract hold them. */
export interface ExchangeSerializers {
  requestSerialize(value: object): Buffer;
  requestDeserialize(bytes: Buffer): object;
  responseSerialize(value: object): Buffer;
  responseDeserialize(bytes: Buffer): object;
}

/** The codec of the frames edge-auth sends (ClientFrames). */
export const requestCodec = (method: ExchangeSerializers): FrameCodec => ({
  encode: method.requestSerialize,
  decode: method.requestDeserialize,
});

/** The codec of the frames provider-proxy sends back (ServerFrames). */
export const responseCodec = (method: ExchangeSerializers): FrameCodec => ({
  encode: method.responseSerialize,
  decode: method.responseDeserialize,
});

export interface CodecRounds {
  /** Nanoseconds of CPU per frame, one entry per round. */
  encodeNs: number[];
  decodeNs: number[];
}

export interface TimingOptions {
  rounds: number;
  /** Times every message is encoded (and decoded) in one round. */
  passes: number;
}

const cpuNanos = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) * 1_000;
};

/**
 * Times each codec over the same messages. Refuses codecs that disagree on a message's encoded length: they would not
 * be doing the same work.
 */
export function timeCodecs(
  codecs: Record<string, FrameCodec>,
  messages: ReadonlyArray<{ frames?: unknown[] | null }>,
  options: TimingOptions,
): Record<string, CodecRounds> {
  const names = Object.keys(codecs);
  const frames = messages.reduce((sum, message) => sum + (message.frames?.length ?? 0), 0) * options.passes;
  if (frames === 0) throw new Error('no frames to time');
  const encoded = new Map(names.map((name) => [name, messages.map((message) => codecs[name]!.encode(message))]));
  const lengths = (name: string) =>
    encoded
      .get(name)!
      .map((bytes) => bytes.length)
      .join();
  for (const name of names.slice(1)) {
    if (lengths(name) !== lengths(names[0]!)) throw new Error(`${name} and ${names[0]} encode to different lengths`);
  }
  const results = Object.fromEntries(names.map((name) => [name, { encodeNs: [], decodeNs: [] } as CodecRounds]));
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) {
      const codec = codecs[name]!;
      const bytes = encoded.get(name)!;
      let since = process.cpuUsage();
      for (let pass = 0; pass < options.passes; pass++) {
        for (const message of messages) codec.encode(message);
      }
      results[name]!.encodeNs.push(cpuNanos(since) / frames);
      since = process.cpuUsage();
      for (let pass = 0; pass < options.passes; pass++) {
        for (const message of bytes) codec.decode(message);
      }
      results[name]!.decodeNs.push(cpuNanos(since) / frames);
    }
  }
  return results;
}
