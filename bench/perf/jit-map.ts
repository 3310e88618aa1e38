import { readFile, rename, stat, writeFile } from 'node:fs/promises';

/** One line of a perf map (`/tmp/perf-<pid>.map`, written by V8's `--perf-basic-prof*`): `<start hex> <size hex> <name>`. */
interface JitEntry {
  start: bigint;
  end: bigint;
  line: string;
}

const ENTRY = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i;

function parseEntry(line: string): JitEntry | undefined {
  const match = ENTRY.exec(line);
  if (!match) return undefined;
  const start = BigInt(`0x${match[1]!}`);
  return { start, end: start + BigInt(`0x${match[2]!}`), line };
}

/**
 * The perf map with only the newest name at every address. V8 appends a line whenever it places code, and it reuses
 * the room of code it dropped (a deoptimised function, a flushed one, a compacted code space), so that an address can
 * carry several names over a process's life. perf does not know which came last and kept an old one: in one
 * edge-auth profile, 11.9 % of the samples, spent writing to sockets, were charged to OpenTelemetry's span serialiser
 * whose code had lived there before. An entry overlapped by a later one is dropped; the rest keep their order. A
 * profile of a warmed process, as bench:perf records, then names what ran during the recording, except code replaced
 * during the recording itself, which is charged to its newest name.
 */
export function newestJitNames(mapText: string): string {
  const entries = mapText.split('\n').map(parseEntry);
  /** Kept entries, sorted by start, not overlapping one another. */
  const kept: JitEntry[] = [];
  const firstEndingAfter = (start: bigint): number => {
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (kept[middle]!.end <= start) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const survivors: JitEntry[] = [];
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry === undefined || entry.end <= entry.start) continue;
    const at = firstEndingAfter(entry.start);
    if (at < kept.length && kept[at]!.start < entry.end) continue;
    kept.splice(at, 0, entry);
    survivors.push(entry);
  }
  return survivors
    .reverse()
    .map(({ line }) => `${line}\n`)
    .join('');
}

/** Where V8 writes the perf map of process `pid`, and where perf looks for it. */
export function jitMapPath(pid: number, directory = '/tmp'): string {
  return `${directory}/perf-${pid}.map`;
}

/** How much of a process's perf map is written so far: read when a recording ends, for keepNewestJitNames. */
export async function jitMapLength(pid: number, directory = '/tmp'): Promise<number> {
  return (await stat(jitMapPath(pid, directory))).size;
}

/**
 * Rewrites a process's perf map to the newest names, as they stood when the recording ended (`writtenBytes`, from
 * jitMapLength): code the process placed later, while it went on running or shut down, ran in none of the samples.
 */
export async function keepNewestJitNames(pid: number, writtenBytes: number, directory = '/tmp'): Promise<void> {
  const path = jitMapPath(pid, directory);
  const written = (await readFile(path)).subarray(0, writtenBytes).toString('utf8');
  // The process may still append to the file it opened: it goes on writing to the replaced one.
  await writeFile(`${path}.newest`, newestJitNames(written.slice(0, written.lastIndexOf('\n') + 1)));
  await rename(`${path}.newest`, path);
}
