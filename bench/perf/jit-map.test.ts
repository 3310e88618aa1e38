import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jitMapLength, keepNewestJitNames, newestJitNames } from './jit-map';

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('perf map: the newest name at every address', () => {
  it('drops an entry that a later one overlaps, whichever side the later one starts', () => {
    const map = [
      '7f00000010c0 11e0 JS:+writeAttributes common-serializer.js:60:25',
      '7f0000001080 b4 JS:^createPatchMap context.js:164:20',
      '7f0000002000 40 JS:*untouched a.js:1:1',
      '7f0000001f00 200 JS:*writevGeneric node:internal/stream_base_commons:72:23',
    ].join('\n');
    expect(lines(newestJitNames(map))).toEqual([
      '7f0000001080 b4 JS:^createPatchMap context.js:164:20',
      '7f0000001f00 200 JS:*writevGeneric node:internal/stream_base_commons:72:23',
    ]);
  });

  it('keeps entries that only touch, in the order they were written, and skips what is not an entry', () => {
    const map = ['1000 100 JS:*a a.js:1:1', 'garbage', '', '1100 100 JS:*b b.js:1:1', '0ff0 10 JS:*c c.js:1:1'].join(
      '\n',
    );
    expect(lines(newestJitNames(map))).toEqual([
      '1000 100 JS:*a a.js:1:1',
      '1100 100 JS:*b b.js:1:1',
      '0ff0 10 JS:*c c.js:1:1',
    ]);
  });

  it('keeps the latest of entries placed at the same address, names with spaces whole', () => {
    const map = ['2000 80 JS:~f a.js:1:1', '2000 80 JS:*f a.js:1:1', '2000 40 JS:*g (anonymous) b.js:2:2'].join('\n');
    expect(lines(newestJitNames(map))).toEqual(['2000 40 JS:*g (anonymous) b.js:2:2']);
  });

  it('rewrites a process map as it stood when the recording ended, what came later left out', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'jit-map-'));
    const path = join(directory, 'perf-42.map');
    try {
      await writeFile(path, '1000 100 JS:*old a.js:1:1\n1040 10 JS:*new b.js:1:1\n');
      const written = await jitMapLength(42, directory);
      await appendFile(path, '1000 80 JS:*atShutdown c.js:1:1\n1200 10 JS:*half');
      await keepNewestJitNames(42, written + 12, directory);
      expect(await readFile(path, 'utf8')).toBe('1040 10 JS:*new b.js:1:1\n');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
