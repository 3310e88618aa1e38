import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);

/** TypeScript's own CommonJS output, as `tsc -p tsconfig.build.json` writes a library's dist. */
function compile(source: string): string {
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
}

const MODULE = `
export let bumps = 0;
export function bump(): number { return ++bumps; }
export function greet(name: string): string { return 'hello ' + name; }
`;
const BARREL = `export { bumps, bump, greet } from './greet';\n`;

/** Prints what V8 says of each barrel's shape before and after, and whether the barrels still answer as before. */
const CHILD = `
const { fastenLibraryExports } = require(process.env.HELPER);
const library = require(process.env.LIBRARY);
const other = require(process.env.OTHER);
const before = { library: %HasFastProperties(library), other: %HasFastProperties(other) };
const fastened = fastenLibraryExports();
library.bump();
console.log(JSON.stringify({
  before,
  after: { library: %HasFastProperties(library), other: %HasFastProperties(other) },
  fastened,
  bumps: library.bumps,
  greeting: library.greet('you'),
  keys: Object.keys(library),
}));
`;

describe('fastenLibraryExports', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'fast-exports-'));
    const files: Record<string, string> = {
      'libs/fixture/dist/greet.js': compile(MODULE),
      'libs/fixture/dist/index.js': compile(BARREL),
      'vendor/fixture/index.js': compile(BARREL),
      'vendor/fixture/greet.js': compile(MODULE),
      'helper/fast-exports.js': compile(await readFile(join(__dirname, 'fast-exports.ts'), 'utf8')),
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("gives the libraries' barrels a fast shape and leaves what they export, live bindings included, as it was", async () => {
    const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '-e', CHILD], {
      env: {
        ...process.env,
        HELPER: join(root, 'helper/fast-exports.js'),
        LIBRARY: join(root, 'libs/fixture/dist/index.js'),
        OTHER: join(root, 'vendor/fixture/index.js'),
      },
    });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    // TypeScript's output really is a dictionary: the reason for the helper.
    expect(seen.before).toEqual({ library: false, other: false });
    expect(seen.after).toEqual({ library: true, other: false });
    expect(seen.fastened).toBe(1);
    expect(seen.bumps).toBe(1);
    expect(seen.greeting).toBe('hello you');
    expect(seen.keys).toEqual(['bumps', 'bump', 'greet']);
  });
});
