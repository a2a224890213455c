/** Tests run against real PostgreSQL (a fresh database per run) and real Redis. */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }] },
  moduleNameMapper: {
    '^@relay/shared$': '<rootDir>/libs/shared/src',
    '^@relay/ledger$': '<rootDir>/libs/ledger/src',
    '^@relay/ledger/jobs$': '<rootDir>/libs/ledger/src/jobs',
    '^@relay/casino-sandbox$': '<rootDir>/tools/casino-sandbox/src',
    // The API reference generator imports the services' schemas: the sources, as the tests run them.
    '^@relay/(launcher|wallet|reporting|notifier|admin|backoffice)$': '<rootDir>/services/$1/src',
    '^@relay/openapi$': '<rootDir>/tools/openapi/src',
  },
  testMatch: [
    '<rootDir>/{libs,services,tools}/*/src/**/*.test.ts',
    '<rootDir>/{libs,services,tools}/*/test/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
    // Restarting PostgreSQL and Redis disturbs every other test: `npm test` runs these alone,
    // in a second serial phase (`--testMatch` on the command line replaces this list).
    '!**/test/faults/disruptive/**',
    // Tests that read everything the run's database writes (its WAL records) run alone in that phase too.
    '!**/test/serial/**',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
