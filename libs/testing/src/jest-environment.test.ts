import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf, isInProcessTable, stopChild } from './child-process';
import { repoRoot } from './repo-paths';

const RUN_LIMIT_MS = 90_000;

describe('the test environment (jest.environment.js)', () => {
  it(
    'kills a service a test file left running, so that the Jest run ends',
    async () => {
      const root = repoRoot();
      const dir = await mkdtemp(join(tmpdir(), 'jest-environment-'));
      const pidFile = join(dir, 'pid');
      const config = {
        rootDir: root,
        testEnvironment: '<rootDir>/jest.environment.js',
        transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }] },
        testMatch: ['<rootDir>/libs/testing/src/fixtures/leaves-a-service-running.fixture.ts'],
      };
      const jest = spawn(
        process.execPath,
        [
          join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
          '--config',
          JSON.stringify(config),
          '--no-watchman',
          '--ci',
        ],
        { cwd: root, env: { ...process.env, LEFTOVER_PID_FILE: pidFile }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      jest.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      jest.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => void stopChild(jest, 'SIGKILL'), RUN_LIMIT_MS);
      try {
        const ended = await exitOf(jest);
        expect({ ended, output }).toMatchObject({ ended: { code: 0, signal: null } });
        expect(output).toMatch(/leaves-a-service-running\.fixture\.ts left leftover running; killed with SIGKILL/);
        const pid = Number(await readFile(pidFile, 'utf8'));
        expect(pid).toBeGreaterThan(0);
        expect(isInProcessTable(pid)).toBe(false);
      } finally {
        clearTimeout(timer);
        await rm(dir, { recursive: true, force: true });
      }
    },
    RUN_LIMIT_MS + 10_000,
  );
});
