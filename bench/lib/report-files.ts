import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '@gateway/testing';

/** The time part of a report's file names: its start, with no character a file system refuses. */
export const reportStamp = (startedAt: string): string => startedAt.replace(/[:.]/g, '-');

/**
 * Writes reports/<kind>-<stamp>.md and .json, prints the markdown and says where it went. Returns the path of the
 * markdown, relative to the repository.
 */
export async function writeReportFiles(
  kind: string,
  stamp: string,
  markdown: string,
  data: unknown,
  log: (message: string) => void,
): Promise<string> {
  const reportsDir = join(repoRoot(), 'reports');
  await mkdir(reportsDir, { recursive: true });
  await writeFile(join(reportsDir, `${kind}-${stamp}.md`), markdown);
  await writeFile(join(reportsDir, `${kind}-${stamp}.json`), JSON.stringify(data, null, 2));
  console.log(`\n${markdown}`);
  log(`report written to reports/${kind}-${stamp}.md and .json`);
  return `reports/${kind}-${stamp}.md`;
}

/** Runs a bench command's main and exits with its outcome (0, or 1 after printing the error). */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
