import type { Options } from '@grpc/proto-loader';

/**
 * One set of decoding options, used both to generate the types and to load the contracts at run time,
 * so the generated types describe exactly the objects grpc-js hands us.
 */
export const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

export const LOADER_FLAGS = ['--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs'];
