import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { MapField, Type, type Field, type Root } from 'protobufjs';
import {
  CODEC_HELPERS,
  decodeSource,
  nestedParameter,
  sizeSource,
  writeSource,
  type FieldKind,
  type FieldSource,
  type MessageSource,
} from './codec-source';

/**
 * Encoders and decoders for the Exchange stream's frames, built from the contract's own reflection (so a field the
 * .proto gains is encoded as soon as it is declared) and writing the bytes protobufjs would, in two passes over the
 * message instead of protobufjs's list of one pending operation per field. Each message's passes are functions
 * written out field by field (codec-source.ts), as protobufjs writes its own. Decoding yields the objects
 * proto-loader's deserializer gives with LOADER_OPTIONS (every field with its default, `kind` naming the member set
 * of a oneof) without its second walk through toObject. Every frame of every forwarded request goes through these,
 * in every process on the Exchange stream (docs/benchmarks.md, "The Exchange frames' codec").
 * Only the field types the frames use are supported; compileCodec refuses a message with any other.
 */
export interface MessageCodec {
  encode(message: object): Buffer;
  decode(bytes: Buffer): object;
}

interface FieldSpec extends FieldSource {
  message: CompiledMessage | undefined;
}

/** A message's fields, and the functions compiled from them (codec-source.ts). */
interface CompiledMessage extends MessageSource {
  fields: FieldSpec[];
  size(value: object, lengths: number[]): number;
  write(value: object, out: Buffer, cursor: Cursor, lengths: number[]): void;
  decode(reader: Reader, end: number): object;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;
const EMPTY_BYTES = Buffer.alloc(0);

export function compileCodec(type: Type): MessageCodec {
  const message = compileMessage(type, new Map());
  return {
    encode: (value) => encodeMessage(message, value),
    decode: (bytes) => message.decode({ bytes, at: 0 }, bytes.length),
  };
}

/** Makes one method of a loaded service encode and decode both ways through compiled codecs. */
export function useCompiledCodecs(
  definition: PackageDefinition,
  serviceName: string,
  methodName: string,
  root: Root,
): void {
  const method = (definition[serviceName] as ServiceDefinition)[methodName];
  const protoMethod = root.lookupService(serviceName).methods[methodName];
  if (!method || !protoMethod?.resolvedRequestType || !protoMethod.resolvedResponseType) {
    throw new Error(`${serviceName}.${methodName} is not in the contract`);
  }
  const request = compileCodec(protoMethod.resolvedRequestType);
  const response = compileCodec(protoMethod.resolvedResponseType);
  const replaced = method as unknown as Record<string, (value: never) => unknown>;
  replaced.requestSerialize = refusingArrays(request, protoMethod.resolvedRequestType.name);
  replaced.requestDeserialize = request.decode;
  replaced.responseSerialize = refusingArrays(response, protoMethod.resolvedResponseType.name);
  replaced.responseDeserialize = response.decode;
}

/** proto-loader refuses an array: encode would write an empty message for it. */
function refusingArrays(codec: MessageCodec, name: string): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected a ${name}, got an array`);
    return codec.encode(value);
  };
}

function compileMessage(type: Type, compiled: Map<Type, CompiledMessage>): CompiledMessage {
  const known = compiled.get(type);
  if (known) return known;
  const message: CompiledMessage = {
    name: type.fullName.replace(/^\./, ''),
    fields: [],
    size: notYetCompiled,
    write: notYetCompiled,
    decode: notYetCompiled,
  };
  compiled.set(type, message);
  const fields = [...type.fieldsArray].sort((a, b) => a.id - b.id);
  for (const field of fields) {
    field.resolve();
    const kind = kindOf(field, message.name);
    const spec: FieldSpec = {
      name: field.name,
      key: (field.id << 3) | (kind === 'uint32' || kind === 'bool' ? WIRE_VARINT : WIRE_LENGTH),
      keyBytes: 0,
      kind,
      repeated: field.repeated,
      oneof: field.partOf?.name,
      message: kind === 'message' ? compileMessage(field.resolvedType as Type, compiled) : undefined,
    };
    spec.keyBytes = varintBytes(spec.key);
    message.fields.push(spec);
  }
  Object.assign(message, compiledFunctions(message));
  return message;
}

function notYetCompiled(): never {
  throw new Error('a message codec was used before it was compiled');
}

/**
 * The message's size, write and decode functions, made from codec-source.ts's text with the helpers below and the
 * compiled messages of its message fields (called through them, so a message may contain itself).
 */
function compiledFunctions(message: CompiledMessage): Pick<CompiledMessage, 'size' | 'write' | 'decode'> {
  const helpers: Record<(typeof CODEC_HELPERS)[number], unknown> = {
    utf8Length,
    lengthDelimited,
    varintBytes,
    sizeNested,
    sizeMap,
    writeVarint,
    writeString,
    writeBytes,
    writeNested,
    writeMap,
    asBytes,
    utf8Slice,
    readVarint,
    spanEnd,
    readMapEntry,
    skip,
    EMPTY_BYTES,
  };
  const nested = message.fields.map((field, index) => [nestedParameter(index), field.message] as const);
  const body = [
    sizeSource(message),
    writeSource(message),
    decodeSource(message),
    'return { size, write, decode };',
    // Names the functions' script in stack traces and profiles.
    `//# sourceURL=/libs/proto/reflected-codec/${message.name}.js`,
  ].join('\n');
  // The text comes from the contract's reflection; every name in it was checked to be a protobuf identifier.
  const make = new Function(...CODEC_HELPERS, ...nested.map(([name]) => name), body) as (
    ...values: unknown[]
  ) => Pick<CompiledMessage, 'size' | 'write' | 'decode'>;
  return make(...CODEC_HELPERS.map((name) => helpers[name]), ...nested.map(([, value]) => value));
}

function kindOf(field: Field, owner: string): FieldKind {
  const where = `${owner}.${field.name}`;
  if (field instanceof MapField) {
    if (field.keyType !== 'string' || field.type !== 'string') throw new Error(`${where}: only map<string, string>`);
    return 'map';
  }
  if (field.resolvedType instanceof Type) return 'message';
  if (field.repeated) throw new Error(`${where}: repeated ${field.type} is not supported`);
  if (field.type === 'string' || field.type === 'uint32' || field.type === 'bool' || field.type === 'bytes') {
    return field.type;
  }
  throw new Error(`${where}: ${field.type} is not supported`);
}

// ---- encoding: a pass that sizes every length-delimited part (kept in order), then a pass that writes ----

function encodeMessage(message: CompiledMessage, value: object): Buffer {
  const lengths: number[] = [];
  const size = message.size(value, lengths);
  const out = Buffer.allocUnsafe(size);
  const cursor = { at: 0, next: 0 };
  message.write(value, out, cursor, lengths);
  return out;
}

function sizeNested(keyBytes: number, message: CompiledMessage, value: object, lengths: number[]): number {
  const at = lengths.push(0) - 1;
  return keyBytes + lengthDelimited(message.size(value, lengths), lengths, at);
}

/** Records a part's length (at its reserved slot for a nested part, whose inner lengths follow it) and sizes it. */
function lengthDelimited(length: number, lengths: number[], at?: number): number {
  if (at === undefined) lengths.push(length);
  else lengths[at] = length;
  return varintBytes(length) + length;
}

function sizeMap(keyBytes: number, entries: Record<string, string>, lengths: number[]): number {
  let size = 0;
  for (const key in entries) {
    const at = lengths.push(0) - 1;
    const entry =
      1 + lengthDelimited(utf8Length(key), lengths) + 1 + lengthDelimited(utf8Length(entries[key]!), lengths);
    size += keyBytes + lengthDelimited(entry, lengths, at);
  }
  return size;
}

interface Cursor {
  /** Where the next byte goes. */
  at: number;
  /** The next recorded length to use. */
  next: number;
}

function writeNested(
  key: number,
  message: CompiledMessage,
  value: object,
  out: Buffer,
  cursor: Cursor,
  lengths: number[],
): void {
  writeVarint(out, cursor, key);
  writeVarint(out, cursor, lengths[cursor.next++]!);
  message.write(value, out, cursor, lengths);
}

function writeBytes(key: number, bytes: Uint8Array, out: Buffer, cursor: Cursor, lengths: number[]): void {
  writeVarint(out, cursor, key);
  writeVarint(out, cursor, lengths[cursor.next++]!);
  out.set(bytes, cursor.at);
  cursor.at += bytes.length;
}

function writeMap(key: number, entries: Record<string, string>, out: Buffer, cursor: Cursor, lengths: number[]): void {
  for (const name in entries) {
    writeVarint(out, cursor, key);
    writeVarint(out, cursor, lengths[cursor.next++]!);
    out[cursor.at++] = (1 << 3) | WIRE_LENGTH;
    writeString(out, cursor, name, lengths[cursor.next++]!);
    out[cursor.at++] = (2 << 3) | WIRE_LENGTH;
    writeString(out, cursor, entries[name]!, lengths[cursor.next++]!);
  }
}

/** protobufjs takes a string for a bytes field as base64. */
function asBytes(value: unknown): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : (value as Uint8Array);
}

/**
 * The strings of a frame come in many of V8's representations (literals, concatenations, slices of the request line):
 * a `.length` or `.charCodeAt` site that sees them all goes megamorphic, and a loop over the characters paid for it at
 * every one. A regular expression and Buffer's writers take any of them at native speed.
 */
const NOT_ASCII = /[^\x00-\x7f]/;

function utf8Length(text: string): number {
  return NOT_ASCII.test(text) ? Buffer.byteLength(text, 'utf8') : text.length;
}

/** Only ASCII has as many UTF-8 bytes as UTF-16 units: its bytes are its latin1 bytes. */
function writeString(out: Buffer, cursor: Cursor, text: string, byteLength: number): void {
  writeVarint(out, cursor, byteLength);
  if (byteLength === text.length) latin1Write(out, text, cursor.at, byteLength);
  else utf8Write(out, text, cursor.at, byteLength);
  cursor.at += byteLength;
}

type BufferWriter = (text: string, at: number, length: number) => number;

/** Buffer's own writers without write()'s argument checks and encoding lookup. */
const latin1Write = (out: Buffer, text: string, at: number, length: number): number =>
  (out as unknown as { latin1Write: BufferWriter }).latin1Write(text, at, length);
const utf8Write = (out: Buffer, text: string, at: number, length: number): number =>
  (out as unknown as { utf8Write: BufferWriter }).utf8Write(text, at, length);

function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

function writeVarint(out: Buffer, cursor: Cursor, value: number): void {
  let v = value >>> 0;
  while (v >= 0x80) {
    out[cursor.at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  out[cursor.at++] = v;
}

// ---- decoding ----

interface Reader {
  bytes: Buffer;
  at: number;
}

/** Buffer's own UTF-8 decoder without toString's argument checks (protobufjs reads strings the same way). */
const utf8Slice = (bytes: Buffer, from: number, to: number): string =>
  (bytes as unknown as { utf8Slice(from: number, to: number): string }).utf8Slice(from, to);

/** Reads one map entry up to `end`, leaving the reader there. */
function readMapEntry(reader: Reader, end: number, into: Record<string, string>, owner: string): void {
  let key = '';
  let value = '';
  while (reader.at < end) {
    const tag = readVarint(reader, end);
    if (tag === ((1 << 3) | WIRE_LENGTH) || tag === ((2 << 3) | WIRE_LENGTH)) {
      const to = spanEnd(reader, end, owner);
      const text = utf8Slice(reader.bytes, reader.at, to);
      reader.at = to;
      if (tag >>> 3 === 1) key = text;
      else value = text;
    } else {
      skip(reader, tag & 7, end, owner);
    }
  }
  into[key] = value;
}

function readVarint(reader: Reader, end: number): number {
  let value = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (reader.at >= end) throw new Error('truncated varint');
    const byte = reader.bytes[reader.at++]!;
    // Bits past the 32nd are dropped, as protobufjs's uint32() does.
    if (shift < 32) value |= (byte & 0x7f) << shift;
    if (byte < 0x80) return value >>> 0;
  }
  throw new Error('varint longer than 10 bytes');
}

/** Reads a length prefix: the reader is then at the part's first byte; returns where the part ends. */
function spanEnd(reader: Reader, end: number, owner: string): number {
  const length = readVarint(reader, end);
  const to = reader.at + length;
  if (to > end) throw new Error(`${owner}: a length-delimited field runs past its message`);
  return to;
}

function skip(reader: Reader, wireType: number, end: number, owner: string): void {
  switch (wireType) {
    case 0:
      readVarint(reader, end);
      return;
    case 1:
      reader.at += 8;
      break;
    case 2:
      reader.at = spanEnd(reader, end, owner);
      return;
    case 5:
      reader.at += 4;
      break;
    default:
      throw new Error(`${owner}: wire type ${wireType} cannot be skipped`);
  }
  if (reader.at > end) throw new Error(`${owner}: a field runs past its message`);
}
