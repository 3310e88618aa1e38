// Unit tests live next to the code; cross-service tests live under test/ and talk to real NATS,
// a real MongoDB-wire server and real gRPC/HTTP servers on loopback.
// Transpile only (no type-check per file): `npm run typecheck` checks types once for the whole repo.
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }];
const shared = {
  testEnvironment: '<rootDir>/jest.environment.js',
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper: { '^@gateway/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts' },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/*/src/**/*.test.ts',
        '<rootDir>/services/*/src/**/*.test.ts',
        '<rootDir>/scripts/**/*.test.ts',
        '<rootDir>/bench/**/*.test.ts',
      ],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};
