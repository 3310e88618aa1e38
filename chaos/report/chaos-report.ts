import type { Profile, ScenarioResult } from '../scenarios/scenario';

export interface ChaosReport {
  startedAt: string;
  finishedAt: string;
  profile: Profile;
  machine: string;
  results: ScenarioResult[];
  /** Scenarios that could not run, with the reason. */
  skipped: { id: string; name: string; reason: string }[];
}

const counts = (byCode: Record<string, number>): string =>
  Object.entries(byCode)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ') || '-';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function recoveryText(ms: number | null): string {
  return ms === null ? 'never' : `${(ms / 1000).toFixed(2)} s`;
}

/** One console line per scenario. */
export function resultLine(result: ScenarioResult): string {
  return (
    `${result.met ? 'MET    ' : 'NOT MET'} ${result.id}. ${result.name} | during ${counts(result.during)} | ` +
    `after ${counts(result.after)} | recovery ${recoveryText(result.recoveryMs)} | lost ${result.usageLost} | ` +
    `over-admission ${result.overAdmission} | crashes ${result.crashes}`
  );
}

export function renderMarkdown(report: ChaosReport): string {
  const lines = [
    `# Chaos run ${report.startedAt}`,
    '',
    `Profile \`${report.profile.name}\` (load ${report.profile.rate} req/s; block quota ${report.profile.blockQuota}), ` +
      `finished ${report.finishedAt}. Machine: ${report.machine}. How to read this: [docs/chaos.md](../docs/chaos.md).`,
    '',
    '| # | scenario | what was done | load | answers during the fault | answers after | time to recover | usage lost | over-admission | crashes | target | met |',
    '| - | -------- | ------------- | ---- | ------------------------ | ------------- | --------------- | ---------- | -------------- | ------- | ------ | --- |',
    ...report.results.map((result) =>
      [
        result.id,
        result.name,
        result.action,
        result.load,
        counts(result.during),
        counts(result.after),
        recoveryText(result.recoveryMs),
        result.usageLost,
        result.overAdmission,
        result.crashes,
        result.target,
        result.met ? 'yes' : '**no**',
      ]
        .map((value) => cell(String(value)))
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    ),
    ...report.skipped.map(
      (skip) => `| ${skip.id} | ${skip.name} | not run: ${cell(skip.reason)} | | | | | | | | | skipped |`,
    ),
    '',
    '## Notes',
    '',
  ];
  for (const result of report.results) {
    lines.push(`### ${result.id}. ${result.name}`, '');
    for (const note of result.notes) lines.push(`- ${note}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
