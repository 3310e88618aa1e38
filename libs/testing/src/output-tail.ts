import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

/** The last `limit` lines a child printed, oldest first: what a start failure reports. */
export class OutputTail {
  private readonly lines: string[] = [];

  constructor(private readonly limit = 200) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.limit) this.lines.splice(0, this.lines.length - this.limit);
  }

  snapshot(): string[] {
    return [...this.lines];
  }
}

/** Calls `onLine` for every complete line of `stream` (a trailing partial line is flushed at end). */
export function readLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}
