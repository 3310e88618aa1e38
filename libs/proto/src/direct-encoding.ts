import type { PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { Enum, MapField, Root, Type } from 'protobufjs';

/**
 * Serializers that encode the caller's object as it is. proto-loader's own run protobufjs's fromObject first, which
 * copies every message into a new one to coerce loose input (enum names, 64-bit integers as strings, bytes as
 * base64). On the hot path that copy was a second walk of every frame (a few µs per request at edge-auth in a CPU
 * profile). Our callers build their messages from the generated types, which already hold what encode writes, as
 * long as the contract has no enum and no 64-bit field: assertEncodesAsBuilt checks that when the contract loads.
 * Decoding stays proto-loader's (toObject with LOADER_OPTIONS), so every handler receives the same objects. A method
 * given compiled codecs afterwards (useCompiledCodecs: the Exchange stream) encodes and decodes through those instead.
 */
export function encodeDirectly(definition: PackageDefinition, serviceName: string, root: Root): void {
  const service = root.lookupService(serviceName);
  const methods = definition[serviceName] as ServiceDefinition;
  for (const [name, method] of Object.entries(methods)) {
    const protoMethod = service.methods[name];
    if (!protoMethod?.resolvedRequestType || !protoMethod.resolvedResponseType) {
      throw new Error(`${serviceName}.${name} is not in the contract`);
    }
    const request = protoMethod.resolvedRequestType;
    const response = protoMethod.resolvedResponseType;
    assertEncodesAsBuilt(request);
    assertEncodesAsBuilt(response);
    (method as { requestSerialize: (value: object) => Buffer }).requestSerialize = serializer(request);
    (method as { responseSerialize: (value: object) => Buffer }).responseSerialize = serializer(response);
  }
}

/** The contract's reflection, as protobufjs reads the same file proto-loader loaded. */
export function loadContractRoot(protoRoot: string, file: string): Root {
  const root = new Root();
  root.resolvePath = (_origin, target) => `${protoRoot}/${target}`;
  root.loadSync(file, { keepCase: true });
  root.resolveAll();
  return root;
}

function serializer(type: Type): (value: object) => Buffer {
  return (value) => {
    // proto-loader refuses an array too: encode would write an empty message for it.
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected a ${type.name}, got an array`);
    return type.encode(value).finish() as Buffer;
  };
}

/** Throws when a field of `type` (or of a message inside it) needs fromObject's coercion to be encoded right. */
export function assertEncodesAsBuilt(type: Type, seen = new Set<Type>()): void {
  if (seen.has(type)) return;
  seen.add(type);
  for (const field of type.fieldsArray) {
    field.resolve();
    const where = `${type.fullName.replace(/^\./, '')}.${field.name}`;
    if (field.resolvedType instanceof Enum) {
      throw new Error(`${where} is an enum: encoding without fromObject would write its name, not its number`);
    }
    if (field.long || (field instanceof MapField && /64$/.test(field.keyType))) {
      throw new Error(`${where} is a 64-bit integer: encoding without fromObject would not take it as a string`);
    }
    if (field.resolvedType instanceof Type) assertEncodesAsBuilt(field.resolvedType, seen);
  }
}
