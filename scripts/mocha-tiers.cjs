// Per-tier timeouts, by the folder a test file is in (loaded with --require, see .mocharc.json):
//   test/unit 5 s, test/integration 20 s, test/contracts 20 s, test/e2e (browser tests) 60 s.
// The tier's timeout becomes the default of the file's suites, tests and hooks while mocha loads the
// file, so a suite or test that calls this.timeout(...) keeps what it asked for (whatever the value).
// A unit test that needs longer than 5 s is waiting on something. Files outside these folders keep
// mocha's --timeout. A --timeout other than .mocharc.json's (20 s), e.g. --timeout 120000 while
// debugging or --timeout 0 (--inspect), applies to every tier instead.
// require('mocha') gives the ESM namespace (mocha 12); its default is lib/mocha.cjs, the class the CLI uses.
const mochaModule = require('mocha');
const Mocha = mochaModule.default ?? mochaModule;

const TIER_TIMEOUT_MS = { unit: 5000, integration: 20000, contracts: 20000, e2e: 60000 };
/** The --timeout of .mocharc.json and of the package.json test scripts: with it, the tiers decide. */
const BASE_TIMEOUT_MS = 20000;

function tierOf(file) {
  const match = /[\\/]test[\\/](unit|integration|contracts|e2e)[\\/]/.exec(String(file ?? ''));
  return match ? match[1] : null;
}

// Suite#timeout(ms) also resets every suite and test already in the suite (mocha 12), so the root's
// default is swapped through its field while one file loads; what the file creates inherits it.
function setDefault(root, ms) {
  root._timeout = ms;
  if (root.timeout() !== ms) throw new Error('scripts/mocha-tiers.cjs: this mocha version keeps timeouts elsewhere; update the script');
}

function useTierTimeouts(mocha) {
  const root = mocha.suite;
  if (root.__cmsTiers) return;
  root.__cmsTiers = true;
  const configured = root.timeout();
  root.on(Mocha.Suite.constants.EVENT_FILE_PRE_REQUIRE, (_context, file) => {
    const tier = tierOf(file);
    if (configured === BASE_TIMEOUT_MS && tier) setDefault(root, TIER_TIMEOUT_MS[tier]);
  });
  root.on(Mocha.Suite.constants.EVENT_FILE_POST_REQUIRE, () => setDefault(root, configured));
}

for (const method of ['loadFiles', 'loadFilesAsync']) {
  const original = Mocha.prototype[method];
  Mocha.prototype[method] = function (...args) {
    useTierTimeouts(this);
    return original.apply(this, args);
  };
}

module.exports = { TIER_TIMEOUT_MS, tierOf };
