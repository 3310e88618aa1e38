/**
 * Generates the TypeScript types of every .proto under libs/proto/proto into src/generated.
 * `--check` generates into a temporary folder and fails when the committed output differs, so the types can
 * never drift from the contract.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { LOADER_FLAGS } from '../src/loader-options';

const libRoot = resolve(__dirname, '..');
const protoRoot = join(libRoot, 'proto');
const committedOut = join(libRoot, 'src', 'generated');
const generator = resolve(libRoot, '..', '..', 'node_modules', '.bin', 'proto-loader-gen-types');

function listFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listFiles(path, suffix);
    return path.endsWith(suffix) ? [path] : [];
  });
}

function generate(outDir: string): void {
  const protos = listFiles(protoRoot, '.proto').map((file) => relative(protoRoot, file));
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(generator, [...LOADER_FLAGS, '--grpcLib=@grpc/grpc-js', '-I', protoRoot, '-O', outDir, ...protos], {
    stdio: 'inherit',
  });
  // The generator writes the absolute path of each .proto; keep the output independent of the checkout path.
  for (const file of listFiles(outDir, '.ts')) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.split(`${protoRoot}/`).join('libs/proto/proto/'));
  }
}

function snapshot(dir: string): Map<string, string> {
  return new Map(listFiles(dir, '.ts').map((file) => [relative(dir, file), readFileSync(file, 'utf8')]));
}

if (process.argv.includes('--check')) {
  const scratch = mkdtempSync(join(tmpdir(), 'proto-check-'));
  try {
    generate(scratch);
    const fresh = snapshot(scratch);
    const committed = snapshot(committedOut);
    const differing = [...new Set([...fresh.keys(), ...committed.keys()])].filter(
      (file) => fresh.get(file) !== committed.get(file),
    );
    if (differing.length > 0) {
      console.error(`generated proto types are stale (run npm run proto:gen):\n  ${differing.join('\n  ')}`);
      process.exit(1);
    }
    console.log('generated proto types are up to date');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  generate(committedOut);
  console.log(`generated ${relative(process.cwd(), committedOut)}`);
}
