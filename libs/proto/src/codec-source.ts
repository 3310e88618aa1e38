/**
 * The source of one message's encoder and decoder functions, written out field by field from the contract's
 * reflection (reflected-codec.ts compiles it with the helpers it names). Each field is read and written by its own
 * name at its own site, so V8 sees one object shape per site rather than every field of every frame type through one
 * keyed load (docs/benchmarks.md, "The Exchange frames' codec").
 */

export type FieldKind = 'string' | 'uint32' | 'bool' | 'bytes' | 'message' | 'map';

export interface FieldSource {
  name: string;
  /** The field's key as written on the wire: (number << 3) | wire type. */
  key: number;
  keyBytes: number;
  kind: FieldKind;
  repeated: boolean;
  /** The oneof this field belongs to: its members have no default and set the oneof's name when present. */
  oneof: string | undefined;
}

export interface MessageSource {
  name: string;
  /** In field-number order, the order protobufjs writes them in. */
  fields: FieldSource[];
}

/** What the generated functions call: passed in as the parameters of the same names. */
export const CODEC_HELPERS = [
  'utf8Length',
  'lengthDelimited',
  'varintBytes',
  'sizeNested',
  'sizeMap',
  'writeVarint',
  'writeString',
  'writeBytes',
  'writeNested',
  'writeMap',
  'asBytes',
  'utf8Slice',
  'readVarint',
  'spanEnd',
  'readMapEntry',
  'skip',
  'EMPTY_BYTES',
] as const;

/** The parameter naming the compiled message of a message field, by the field's index. */
export const nestedParameter = (index: number): string => `nested${index}`;

const PROTO_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A field or oneof name as a quoted property: never code, never a property every object has. */
function property(name: string, owner: string): string {
  if (!PROTO_NAME.test(name) || name in Object.prototype) {
    throw new Error(`${owner}: "${name}" cannot be a property of a decoded message`);
  }
  return JSON.stringify(name);
}

/** `function size(value, lengths)`: the message's encoded size, recording each length-delimited part's length. */
export function sizeSource(message: MessageSource): string {
  const lines = ['function size(value, lengths) {', '  let size = 0;', '  let x;'];
  message.fields.forEach((field, index) => {
    const { keyBytes } = field;
    lines.push(`  x = value[${property(field.name, message.name)}];`, '  if (x !== undefined && x !== null) {');
    switch (field.kind) {
      case 'string':
        lines.push(`    size += ${keyBytes} + lengthDelimited(utf8Length(x), lengths);`);
        break;
      case 'uint32':
        lines.push(`    size += ${keyBytes} + varintBytes(x >>> 0);`);
        break;
      case 'bool':
        lines.push(`    size += ${keyBytes + 1};`);
        break;
      case 'bytes':
        lines.push(`    size += ${keyBytes} + lengthDelimited(asBytes(x).length, lengths);`);
        break;
      case 'message':
        lines.push(
          field.repeated
            ? `    for (const item of x) size += sizeNested(${keyBytes}, ${nestedParameter(index)}, item, lengths);`
            : `    size += sizeNested(${keyBytes}, ${nestedParameter(index)}, x, lengths);`,
        );
        break;
      case 'map':
        lines.push(`    size += sizeMap(${keyBytes}, x, lengths);`);
        break;
    }
    lines.push('  }');
  });
  lines.push('  return size;', '}');
  return lines.join('\n');
}

/** `function write(value, out, cursor, lengths)`: writes the message at the cursor with the lengths size recorded. */
export function writeSource(message: MessageSource): string {
  const lines = ['function write(value, out, cursor, lengths) {', '  let x;'];
  message.fields.forEach((field, index) => {
    const key = field.key >>> 0;
    lines.push(`  x = value[${property(field.name, message.name)}];`, '  if (x !== undefined && x !== null) {');
    switch (field.kind) {
      case 'string':
        lines.push(`    writeVarint(out, cursor, ${key});`, '    writeString(out, cursor, x, lengths[cursor.next++]);');
        break;
      case 'uint32':
        lines.push(`    writeVarint(out, cursor, ${key});`, '    writeVarint(out, cursor, x >>> 0);');
        break;
      case 'bool':
        lines.push(`    writeVarint(out, cursor, ${key});`, '    out[cursor.at++] = x ? 1 : 0;');
        break;
      case 'bytes':
        lines.push(`    writeBytes(${key}, asBytes(x), out, cursor, lengths);`);
        break;
      case 'message':
        lines.push(
          field.repeated
            ? `    for (const item of x) writeNested(${key}, ${nestedParameter(index)}, item, out, cursor, lengths);`
            : `    writeNested(${key}, ${nestedParameter(index)}, x, out, cursor, lengths);`,
        );
        break;
      case 'map':
        lines.push(`    writeMap(${key}, x, out, cursor, lengths);`);
        break;
    }
    lines.push('  }');
  });
  lines.push('}');
  return lines.join('\n');
}

/** The value a field not on the wire decodes to, as proto-loader's toObject gives it with LOADER_OPTIONS. */
function defaultSource(field: FieldSource): string {
  if (field.repeated) return '[]';
  switch (field.kind) {
    case 'string':
      return "''";
    case 'uint32':
      return '0';
    case 'bool':
      return 'false';
    case 'bytes':
      return 'EMPTY_BYTES';
    case 'map':
      return '{}';
    case 'message':
      return 'null';
  }
}

/**
 * `function decode(reader, end)`: the message from the reader's place up to `end`. Every field but a oneof's member
 * starts at its default, in one object literal; a field whose key (number and wire type) is not the contract's is
 * skipped, as a newer peer may send it.
 */
export function decodeSource(message: MessageSource): string {
  const owner = JSON.stringify(message.name);
  const defaults = message.fields
    .filter((field) => field.oneof === undefined)
    .map((field) => `${property(field.name, message.name)}: ${defaultSource(field)}`);
  const lines = [
    'function decode(reader, end) {',
    `  const out = { ${defaults.join(', ')} };`,
    '  const bytes = reader.bytes;',
    '  while (reader.at < end) {',
    '    const key = readVarint(reader, end);',
    '    switch (key) {',
  ];
  message.fields.forEach((field, index) => {
    const name = property(field.name, message.name);
    lines.push(`      case ${field.key >>> 0}: {`);
    switch (field.kind) {
      case 'uint32':
        lines.push(`        out[${name}] = readVarint(reader, end);`);
        break;
      case 'bool':
        lines.push(`        out[${name}] = readVarint(reader, end) !== 0;`);
        break;
      case 'string':
        lines.push(
          `        const to = spanEnd(reader, end, ${owner});`,
          `        out[${name}] = utf8Slice(bytes, reader.at, to);`,
          '        reader.at = to;',
        );
        break;
      case 'bytes':
        // A view, as protobufjs gives: grpc-js hands each message its own buffer.
        lines.push(
          `        const to = spanEnd(reader, end, ${owner});`,
          `        out[${name}] = bytes.subarray(reader.at, to);`,
          '        reader.at = to;',
        );
        break;
      case 'message': {
        const item = `${nestedParameter(index)}.decode(reader, spanEnd(reader, end, ${owner}))`;
        lines.push(field.repeated ? `        out[${name}].push(${item});` : `        out[${name}] = ${item};`);
        break;
      }
      case 'map':
        lines.push(`        readMapEntry(reader, spanEnd(reader, end, ${owner}), out[${name}], ${owner});`);
        break;
    }
    if (field.oneof !== undefined) {
      lines.push(`        out[${property(field.oneof, message.name)}] = ${name};`);
    }
    lines.push('        break;', '      }');
  });
  lines.push(`      default:`, `        skip(reader, key & 7, end, ${owner});`, '    }', '  }', '  return out;', '}');
  return lines.join('\n');
}
