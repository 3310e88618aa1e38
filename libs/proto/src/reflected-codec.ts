import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { MapField, Type, type Field, type Root } from 'protobufjs';

/**
 * Encoders and decoders for the Exchange stream's frames, built from the contract's own reflection (so a field the
 * .proto gains is encoded as soon as it is declared) and writing the bytes protobufjs would, in two passes over the
 * message instead of protobufjs's list of one pending operation per field. Decoding yields the objects
 * proto-loader's deserializer gives with LOADER_OPTIONS (every field with its default, `kind` naming the member set
 * of a oneof) without its second walk through toObject. Every frame of every forwarded request goes through these,
 * in every process on the Exchange stream (docs/benchmarks.md, "The Exchange frames' codec").
 * Only the field types the frames use are supported; compileCodec refuses a message with any other.
 */
export interface MessageCodec {
  encode(message: object): Buffer;
  decode(bytes: Buffer): object;
}

type FieldKind = 'string' | 'uint32' | 'bool' | 'bytes' | 'message' | 'map';

interface FieldSpec {
  name: string;
  /** The field's key as written on the wire: (number << 3) | wire type. */
  key: number;
  keyBytes: number;
  kind: FieldKind;
  repeated: boolean;
  /** The oneof this field belongs to: its members have no default and set `kind` when present. */
  oneof: string | undefined;
  message: CompiledMessage | undefined;
}

interface CompiledMessage {
  name: string;
  /** In field-number order, the order protobufjs writes them in. */
  fields: FieldSpec[];
  /** Indexed by field number. */
  byNumber: Array<FieldSpec | undefined>;
}

const WIRE_VARINT = 0;
const WIRE_LENGTH = 2;
const EMPTY_BYTES = Buffer.alloc(0);

export function compileCodec(type: Type): MessageCodec {
  const message = compileMessage(type, new Map());
  return {
    encode: (value) => encodeMessage(message, value),
    decode: (bytes) => decodeMessage(message, { bytes, at: 0 }, bytes.length),
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
  const message: CompiledMessage = { name: type.fullName.replace(/^\./, ''), fields: [], byNumber: [] };
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
    message.byNumber[field.id] = spec;
  }
  return message;
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
  const size = sizeOf(message, value, lengths);
  const out = Buffer.allocUnsafe(size);
  const cursor = { at: 0, next: 0 };
  writeMessage(message, value, out, cursor, lengths);
  return out;
}

function sizeOf(message: CompiledMessage, value: object, lengths: number[]): number {
  let size = 0;
  const record = value as Record<string, unknown>;
  for (const field of message.fields) {
    const v = record[field.name];
    if (v === undefined || v === null) continue;
    switch (field.kind) {
      case 'string':
        size += field.keyBytes + lengthDelimited(utf8Length(v as string), lengths);
        break;
      case 'uint32':
        size += field.keyBytes + varintBytes((v as number) >>> 0);
        break;
      case 'bool':
        size += field.keyBytes + 1;
        break;
      case 'bytes':
        size += field.keyBytes + lengthDelimited(asBytes(v).length, lengths);
        break;
      case 'message':
        if (!field.repeated) size += sizeNested(field, v as object, lengths);
        else for (const item of v as object[]) size += sizeNested(field, item, lengths);
        break;
      case 'map': {
        const entries = v as Record<string, string>;
        for (const key in entries) {
          const at = lengths.push(0) - 1;
          const entry =
            1 + lengthDelimited(utf8Length(key), lengths) + 1 + lengthDelimited(utf8Length(entries[key]!), lengths);
          size += field.keyBytes + lengthDelimited(entry, lengths, at);
        }
        break;
      }
    }
  }
  return size;
}

function sizeNested(field: FieldSpec, value: object, lengths: number[]): number {
  const at = lengths.push(0) - 1;
  return field.keyBytes + lengthDelimited(sizeOf(field.message!, value, lengths), lengths, at);
}

/** Records a part's length (at its reserved slot for a nested part, whose inner lengths follow it) and sizes it. */
function lengthDelimited(length: number, lengths: number[], at?: number): number {
  if (at === undefined) lengths.push(length);
  else lengths[at] = length;
  return varintBytes(length) + length;
}

interface Cursor {
  /** Where the next byte goes. */
  at: number;
  /** The next recorded length to use. */
  next: number;
}

function writeMessage(message: CompiledMessage, value: object, out: Buffer, cursor: Cursor, lengths: number[]): void {
  const record = value as Record<string, unknown>;
  for (const field of message.fields) {
    const v = record[field.name];
    if (v === undefined || v === null) continue;
    switch (field.kind) {
      case 'string':
        writeVarint(out, cursor, field.key);
        writeString(out, cursor, v as string, lengths[cursor.next++]!);
        break;
      case 'uint32':
        writeVarint(out, cursor, field.key);
        writeVarint(out, cursor, (v as number) >>> 0);
        break;
      case 'bool':
        writeVarint(out, cursor, field.key);
        out[cursor.at++] = v ? 1 : 0;
        break;
      case 'bytes': {
        const bytes = asBytes(v);
        writeVarint(out, cursor, field.key);
        writeVarint(out, cursor, lengths[cursor.next++]!);
        out.set(bytes, cursor.at);
        cursor.at += bytes.length;
        break;
      }
      case 'message':
        if (!field.repeated) writeNested(field, v as object, out, cursor, lengths);
        else for (const item of v as object[]) writeNested(field, item, out, cursor, lengths);
        break;
      case 'map': {
        const entries = v as Record<string, string>;
        for (const key in entries) {
          writeVarint(out, cursor, field.key);
          writeVarint(out, cursor, lengths[cursor.next++]!);
          out[cursor.at++] = (1 << 3) | WIRE_LENGTH;
          writeString(out, cursor, key, lengths[cursor.next++]!);
          out[cursor.at++] = (2 << 3) | WIRE_LENGTH;
          writeString(out, cursor, entries[key]!, lengths[cursor.next++]!);
        }
        break;
      }
    }
  }
}

function writeNested(field: FieldSpec, value: object, out: Buffer, cursor: Cursor, lengths: number[]): void {
  writeVarint(out, cursor, field.key);
  writeVarint(out, cursor, lengths[cursor.next++]!);
  writeMessage(field.message!, value, out, cursor, lengths);
}

/** protobufjs takes a string for a bytes field as base64. */
function asBytes(value: unknown): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : (value as Uint8Array);
}

function utf8Length(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text, 'utf8');
  }
  return text.length;
}

function writeString(out: Buffer, cursor: Cursor, text: string, byteLength: number): void {
  writeVarint(out, cursor, byteLength);
  if (byteLength !== text.length) {
    out.write(text, cursor.at, byteLength, 'utf8');
  } else if (byteLength > 48) {
    out.write(text, cursor.at, byteLength, 'latin1');
  } else {
    // Short ASCII (ids, paths, header names): a loop is cheaper than the call into C++.
    for (let i = 0; i < byteLength; i++) out[cursor.at + i] = text.charCodeAt(i);
  }
  cursor.at += byteLength;
}

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

function decodeMessage(message: CompiledMessage, reader: Reader, end: number): object {
  const out: Record<string, unknown> = {};
  for (const field of message.fields) {
    if (field.oneof === undefined) out[field.name] = defaultOf(field);
  }
  const bytes = reader.bytes;
  while (reader.at < end) {
    const key = readVarint(reader, end);
    const field = message.byNumber[key >>> 3];
    const wireType = key & 7;
    if (field === undefined || wireType !== (field.key & 7)) {
      skip(reader, wireType, end, message.name);
      continue;
    }
    switch (field.kind) {
      case 'uint32':
        out[field.name] = readVarint(reader, end);
        break;
      case 'bool':
        out[field.name] = readVarint(reader, end) !== 0;
        break;
      case 'string': {
        const to = spanEnd(reader, end, message.name);
        out[field.name] = utf8Slice(bytes, reader.at, to);
        reader.at = to;
        break;
      }
      case 'bytes': {
        const to = spanEnd(reader, end, message.name);
        // A view, as protobufjs gives: grpc-js hands each message its own buffer.
        out[field.name] = bytes.subarray(reader.at, to);
        reader.at = to;
        break;
      }
      case 'message': {
        const item = decodeMessage(field.message!, reader, spanEnd(reader, end, message.name));
        if (field.repeated) (out[field.name] as object[]).push(item);
        else out[field.name] = item;
        break;
      }
      case 'map':
        readMapEntry(
          reader,
          spanEnd(reader, end, message.name),
          out[field.name] as Record<string, string>,
          message.name,
        );
        break;
    }
    if (field.oneof !== undefined) out[field.oneof] = field.name;
  }
  return out;
}

function defaultOf(field: FieldSpec): unknown {
  if (field.repeated) return [];
  switch (field.kind) {
    case 'string':
      return '';
    case 'uint32':
      return 0;
    case 'bool':
      return false;
    case 'bytes':
      return EMPTY_BYTES;
    case 'map':
      return {};
    case 'message':
      return null;
  }
}

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
