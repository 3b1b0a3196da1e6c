#!/usr/bin/env node
// `npm run update-server`: the kernel with only the update-server plugin (README, "Update server").
// Build first (npm run build). Stops on SIGTERM / SIGINT like `npm start`.
import { BootError } from '../dist/kernel/errors.js';
import { closeOnSignals } from '../dist/kernel/signals.js';
import { createUpdateServer } from '../dist/plugins/update-server/launch.js';

let kernel;
try {
  kernel = createUpdateServer(process.env);
} catch (err) {
  process.stderr.write(`${err instanceof BootError ? err.message : `Cannot start: ${err.stack}`}\n`);
  process.exit(1);
}
const stopping = closeOnSignals(kernel, kernel.config.http.shutdownTimeoutMs + 15000);
try {
  await kernel.start();
  process.stdout.write(`Update server listening on ${kernel.url}\n`);
} catch (err) {
  if (!stopping()) {
    process.stderr.write(`Boot failed: ${err instanceof BootError ? err.message : err.stack}\n`);
    process.exit(1);
  }
}
