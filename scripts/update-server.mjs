#!/usr/bin/env node
// `npm run update-server`: the kernel with only the update-server plugin (README, "Update server").
// Build first (npm run build). Stops on SIGTERM / SIGINT like `npm start`.
import { BootError } from '../dist/kernel/errors.js';
import { createUpdateServer } from '../dist/plugins/update-server/launch.js';

let kernel;
try {
  kernel = createUpdateServer(process.env);
} catch (err) {
  process.stderr.write(`${err instanceof BootError ? err.message : `Cannot start: ${err.stack}`}\n`);
  process.exit(1);
}
let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  kernel.logger.info({ signal }, 'signal received');
  const force = setTimeout(() => {
    process.stderr.write('Shutdown did not finish in time; exiting\n');
    process.exit(1);
  }, kernel.config.http.shutdownTimeoutMs + 15000);
  force.unref();
  kernel.close().then(() => {
    process.exitCode = 0;
  });
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
try {
  await kernel.start();
  process.stdout.write(`Update server listening on ${kernel.url}\n`);
} catch (err) {
  if (!stopping) {
    process.stderr.write(`Boot failed: ${err instanceof BootError ? err.message : err.stack}\n`);
    process.exit(1);
  }
}
