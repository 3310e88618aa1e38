// The Node test environment, which also kills what a test file left running: a service whose start failed
// half-way (or a file whose afterAll never stopped it) would otherwise keep Jest waiting forever after the run.
const { TestEnvironment } = require('jest-environment-node');

const LAUNCHED_CHILDREN_KEY = '__gatewayLaunchedChildren'; // libs/testing/src/launched-children.ts
const EXIT_WAIT_MS = 5_000;

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, EXIT_WAIT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

class GatewayTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async teardown() {
    const launched = this.global[LAUNCHED_CHILDREN_KEY];
    if (launched && launched.size > 0) {
      const names = [...launched.values()];
      process.stderr.write(`${this.testPath} left ${names.join(', ')} running; killed with SIGKILL\n`);
      await Promise.all(
        [...launched.keys()].map((child) => {
          child.kill('SIGKILL');
          return exited(child);
        }),
      );
      launched.clear();
    }
    await super.teardown();
  }
}

module.exports = GatewayTestEnvironment;
