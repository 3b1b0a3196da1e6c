// Per-tier timeouts: unit tests get 5 s unless they ask for more (integration and contract tests keep
// the 20 s default of .mocharc.json, or their own). A unit test that needs longer is waiting on something.
const UNIT_TIMEOUT_MS = 5000;
const DEFAULT_TIMEOUT_MS = 20000;

exports.mochaHooks = {
  beforeEach() {
    const test = this.currentTest;
    if (test && /[\\/]test[\\/]unit[\\/]/.test(test.file ?? '') && test.timeout() === DEFAULT_TIMEOUT_MS) test.timeout(UNIT_TIMEOUT_MS);
  },
};
