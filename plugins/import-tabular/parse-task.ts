/**
 * Piscina task file of the tabular import formats: each export parses one upload into the spool file
 * and returns the ImportParseSummary as TaskResult data. No kernel runtime imports.
 */
export { parseCsvFile as parseCsv } from './csv-task.js';
export { parseJsonFile as parseJson } from './json-task.js';
export { parseSelfCmsFile as parseSelfCms } from './self-cms-task.js';
export { parseShopHostedFile as parseShopHosted } from './shop-hosted-task.js';
export { parseShopPluginFile as parseShopPlugin } from './shop-plugin-task.js';
