import { loadSync, type MethodDefinition, type ServiceDefinition } from '@grpc/proto-loader';
import { join } from 'node:path';
import { Enum, Field, MapField, Root, Type } from 'protobufjs';
import { loadContractRoot } from './direct-encoding';
import { LOADER_OPTIONS } from './loader-options';
import { compileCodec } from './reflected-codec';

const PROTO_ROOT = join(__dirname, '..', 'proto');
const FILE = 'gateway/provider/v1/provider_proxy.proto';
const PACKAGE = 'gateway.provider.v1';
const SERVICE = `${PACKAGE}.ProviderProxy`;

/** proto-loader as shipped: fromObject + encode, decode + toObject with LOADER_OPTIONS. */
const loader = (loadSync(FILE, { ...LOADER_OPTIONS, includeDirs: [PROTO_ROOT] })[SERVICE] as ServiceDefinition)
  .Exchange as MethodDefinition<object, object>;
const root = loadContractRoot(PROTO_ROOT, FILE);
const clientFrames = compileCodec(root.lookupType(`${PACKAGE}.ClientFrames`));
const serverFrames = compileCodec(root.lookupType(`${PACKAGE}.ServerFrames`));

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const alphabet = ['a', 'Z', '0', '/', '?', '=', '%', '-', 'é', 'ü', '€', '日', '😀', ' '];
  const text = (): string => {
    const length = pick([0, 1, 5, 20, 47, 48, 49, 130, 300]);
    const ascii = next() < 0.6;
    let out = '';
    for (let i = 0; i < length; i++) out += ascii ? String.fromCharCode(32 + Math.floor(next() * 95)) : pick(alphabet);
    return out;
  };
  const uint = (): number => pick([0, 1, 127, 128, 16_383, 16_384, 2_097_152, 268_435_456, 0xffffffff]);
  const bytes = (): Buffer => Buffer.alloc(pick([0, 1, 200, 5_000]), Math.floor(next() * 256));
  const maybe = <T>(make: () => T): T | undefined => (next() < 0.3 ? undefined : make());
  const map = (): Record<string, string> =>
    Object.fromEntries(Array.from({ length: pick([0, 1, 3]) }, () => [text(), text()]));
  const request = () => ({
    correlation_id: maybe(text),
    request_id: maybe(text),
    provider: maybe(text),
    account_id: maybe(text),
    path: maybe(text),
    query: maybe(text),
    timeout_ms: maybe(uint),
    trace_context: maybe(map),
    key_id: maybe(text),
    method: maybe(text),
    body: maybe(bytes),
    window_bytes: maybe(uint),
    max_body_bytes: maybe(uint),
  });
  const clientFrame = () =>
    pick([
      () => ({ request: request() }),
      () => ({ cancel: { correlation_id: text() } }),
      () => ({ credit: { correlation_id: text(), bytes: uint() } }),
    ])();
  const head = () => ({ status: maybe(uint), content_type: maybe(text), headers: maybe(map) });
  const serverFrame = () => ({
    correlation_id: maybe(text),
    ...pick([
      () => ({ head: head() }),
      () => ({ chunk: bytes() }),
      () => ({ end: next() < 0.5 ? {} : { failure: { code: text(), detail: maybe(text) } } }),
      () => ({ whole: { head: maybe(head), body: maybe(bytes) } }),
      () => ({}),
    ])(),
  });
  const frames = <T>(make: () => T) => ({ frames: Array.from({ length: pick([0, 1, 2, 7]) }, make) });
  return { clientFrames: () => frames(clientFrame), serverFrames: () => frames(serverFrame) };
}

describe('compiled codecs of the Exchange frames', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('write the bytes proto-loader writes and read what it reads (seed %i)', (seed) => {
    const make = generator(seed);
    for (let i = 0; i < 50; i++) {
      const client = make.clientFrames();
      const bytes = clientFrames.encode(client);
      expect(bytes.equals(loader.requestSerialize(client))).toBe(true);
      expect(clientFrames.decode(bytes)).toEqual(loader.requestDeserialize(bytes));

      const server = make.serverFrames();
      const answer = serverFrames.encode(server);
      expect(answer.equals(loader.responseSerialize(server))).toBe(true);
      expect(serverFrames.decode(answer)).toEqual(loader.responseDeserialize(answer));
    }
  });

  it('writes strings of every representation V8 gives them as proto-loader does, one site after another', () => {
    const long = `${'x'.repeat(200)}/v1.3/report/integrated/get/`;
    const twoByte = `€${'a'.repeat(60)}/path`;
    const strings = [
      'video-ads', // a literal
      'req_' + 'a'.repeat(30) + '-' + 'b'.repeat(20), // a concatenation
      long.slice(200), // a slice
      twoByte.slice(1), // ASCII held as two-byte
      twoByte, // not ASCII
      String(123_456_789), // a number printed
      JSON.parse('"key_from_json"') as string,
      Buffer.from('from a buffer').toString('latin1'),
      '', // empty
      'é', // latin1 but not ASCII
      'a'.repeat(48) + 'ü', // past the old loop's bound
    ];
    // Each string through the same field, so the sites see every representation in turn.
    for (const text of strings) {
      const message = { frames: [{ request: { path: text, trace_context: { [text || 'k']: text } } }] };
      const bytes = clientFrames.encode(message);
      expect(bytes.equals(loader.requestSerialize(message))).toBe(true);
      expect(
        (clientFrames.decode(bytes) as { frames: Array<{ request: { path: string } }> }).frames[0]!.request.path,
      ).toBe(text);
    }
  });

  it('fills in every default and names the oneof member that came, as toObject does', () => {
    const decoded = clientFrames.decode(clientFrames.encode({ frames: [{ request: {} }, {}] })) as {
      frames: Array<Record<string, unknown>>;
    };
    expect(decoded.frames[0]).toEqual({
      kind: 'request',
      request: expect.objectContaining({ path: '', timeout_ms: 0, trace_context: {}, body: Buffer.alloc(0) }),
    });
    expect(decoded.frames[1]).toEqual({});
  });

  it('skips fields it does not know, as a newer peer may send them', () => {
    const known = clientFrames.encode({ frames: [{ cancel: { correlation_id: 'c-1' } }] });
    // field 15 as a varint, a length-delimited field 16 and a fixed64 field 17 inside the cancel message
    const extra = Buffer.from([0x78, 0x96, 0x01, 0x82, 0x01, 0x02, 0x61, 0x62, 0x89, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]);
    const cancel = Buffer.concat([Buffer.from([0x0a, 3]), Buffer.from('c-1'), extra]);
    const frame = Buffer.concat([Buffer.from([0x12, cancel.length]), cancel]);
    const message = Buffer.concat([Buffer.from([0x0a, frame.length]), frame]);
    expect(clientFrames.decode(message)).toEqual(clientFrames.decode(known));
  });

  it('refuses a message cut short rather than reading past it', () => {
    const bytes = serverFrames.encode({ frames: [{ correlation_id: 'c-1', chunk: Buffer.alloc(100, 1) }] });
    expect(() => serverFrames.decode(bytes.subarray(0, bytes.length - 10))).toThrow(/runs past/);
    expect(() => serverFrames.decode(Buffer.from([0x0a, 0x80]))).toThrow(/truncated varint/);
  });

  it('refuses at compile time a field type the frames do not use', () => {
    const with_ = (field: Field) => new Type('Probe').add(field);
    expect(() => compileCodec(with_(new Field('n', 1, 'int64')))).toThrow(/Probe\.n: int64 is not supported/);
    expect(() => compileCodec(with_(new Field('ns', 1, 'uint32', 'repeated')))).toThrow(/repeated uint32/);
    expect(() => compileCodec(new Type('Probe').add(new MapField('m', 1, 'string', 'uint32')))).toThrow(
      /map<string, string>/,
    );
    const withEnum = new Type('Probe').add(new Field('status', 1, 'Status'));
    withEnum.add(new Enum('Status', { UNKNOWN: 0 }));
    expect(() => compileCodec(withEnum)).toThrow(/Probe\.status/);
  });
});

describe('the functions compiled for each message', () => {
  it('encode and decode a message that contains itself, as protobufjs does', () => {
    const tree = new Type('Tree')
      .add(new Field('name', 1, 'string'))
      .add(new Field('children', 2, 'Tree', 'repeated'))
      .add(new Field('parent', 3, 'Tree'))
      .add(new Field('leaf', 4, 'bool'));
    new Root().add(tree);
    const codec = compileCodec(tree);
    const value = {
      name: 'root',
      children: [
        { name: 'a', children: [{ name: 'a1', leaf: true }] },
        { name: 'b', leaf: true },
      ],
    };
    const bytes = codec.encode(value);
    expect(bytes.equals(Buffer.from(tree.encode(tree.fromObject(value)).finish()))).toBe(true);
    const leaf = { name: '', children: [], parent: null, leaf: true };
    expect(codec.decode(bytes)).toEqual({
      name: 'root',
      children: [
        { name: 'a', children: [{ ...leaf, name: 'a1' }], parent: null, leaf: false },
        { ...leaf, name: 'b' },
      ],
      parent: null,
      leaf: false,
    });
  });

  it('refuses a field name that is not an identifier or that every object has, rather than write code for it', () => {
    expect(() => compileCodec(new Type('Probe').add(new Field('constructor', 1, 'string')))).toThrow(
      /Probe: "constructor" cannot be a property of a decoded message/,
    );
    const injected = 'x"] = 1; globalThis.reached = true; //';
    expect(() => compileCodec(new Type('Probe').add(new Field(injected, 1, 'string')))).toThrow(/cannot be a property/);
    expect((globalThis as { reached?: boolean }).reached).toBeUndefined();
  });

  it('names its functions after the message in stack traces and profiles', () => {
    const codec = compileCodec(new Type('Probe').add(new Field('count', 1, 'uint32')));
    let stack = '';
    try {
      codec.decode(Buffer.from([0x08, 0x80]));
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toMatch(/truncated varint/);
    expect(stack).toContain('/libs/proto/reflected-codec/Probe.js');
  });
});
