import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/sdk.js';
import { phpCmsFormat } from './php-cms-format.js';
import { nodeCmsFormat } from './node-cms-format.js';
import { dataCmsFormat } from './data-cms-format.js';

/** The parse tasks run in the worker pool from this compiled file. */
const taskFile = fileURLToPath(new URL('./parse-task.js', import.meta.url));

export default definePlugin({
  register({ registries }) {
    for (const format of [phpCmsFormat, nodeCmsFormat, dataCmsFormat]) registries.importFormats.add({ ...format, taskFile });
  },
});
