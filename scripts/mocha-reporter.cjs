// The spec reporter, plus the plain closing line CI reads: "N passed, N failed, N skipped", and a list of
// tests that were slow while this process hardly used the CPU (waiting on a lock or a timer: a hang in
// disguise until someone asks why), and the files that took longest (what CI's duration is made of).
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_BEGIN, EVENT_TEST_END } = Mocha.Runner.constants;
const SLOW_MS = Number(process.env.CMS_TEST_IDLE_REPORT_MS ?? 5000);

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const idle = [];
    /** Wall time per test file (its top-level suites, hooks included). */
    const files = new Map();
    const suiteStarts = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.parent?.root && suite.file) suiteStarts.set(suite, performance.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const began = suiteStarts.get(suite);
      if (began === undefined) return;
      const file = suite.file.replace(/^.*[\\/](test[\\/])/, '$1');
      files.set(file, (files.get(file) ?? 0) + performance.now() - began);
    });
    let started = 0;
    let cpu = null;
    runner.on(EVENT_TEST_BEGIN, () => {
      started = performance.now();
      cpu = process.cpuUsage();
    });
    runner.on(EVENT_TEST_END, (test) => {
      const wall = performance.now() - started;
      if (!cpu || wall < SLOW_MS) return;
      const used = process.cpuUsage(cpu);
      const share = (used.user + used.system) / 1000 / wall;
      if (share < 0.2) idle.push(`${(wall / 1000).toFixed(1)} s, ${Math.round(share * 100)} % CPU: ${test.fullTitle()}`);
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      if (idle.length) {
        process.stdout.write(
          `\nSlow while this process was mostly idle (a browser, a child process or a lock?):\n${idle.map((l) => `  ${l}`).join('\n')}\n`,
        );
      }
      const slowest = [...files.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20);
      if (slowest.length > 1) {
        const total = [...files.values()].reduce((a, b) => a + b, 0);
        process.stdout.write(
          `\nSlowest files (of ${(total / 60000).toFixed(1)} min in ${files.size} files):\n${slowest.map(([f, ms]) => `  ${(ms / 1000).toFixed(1)} s  ${f}`).join('\n')}\n`,
        );
      }
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;
