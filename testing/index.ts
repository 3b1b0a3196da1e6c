/**
 * The contract runners: the suites every implementation of an extension point must pass, for plugin
 * authors to run against their own plugin, storage driver, import format, dashboard widget, data-operation
 * domain or identity resolver (the project runs them against its own in test/contracts/). Each function
 * registers mocha `describe`/`it` blocks (in the calling suite, or its own `describe`) and asserts with
 * chai: a plugin that runs them needs `mocha`, `chai` (and for TypeScript `@types/mocha`) as dev
 * dependencies. See "Testing your plugin against the contracts" in docs/guides/writing-a-plugin.md.
 */
export type { ClosableContractKernel, ContractKernel, ContractResponse } from './contract-kernel.js';
export { dataDomainContract } from './data-domain.js';
export type { DataDomainContractOptions } from './data-domain.js';
export { identityResolverContract } from './identity-resolver.js';
export type { CredentialSample, IdentityResolverContractOptions } from './identity-resolver.js';
export { importFormatContract } from './import-format.js';
export type { ImportFormatContractOptions } from './import-format.js';
export { pluginContract } from './plugin.js';
export type { PluginContractOptions } from './plugin.js';
export { BAD_PATHS, expectRefused, MiB, refusal, storageDriverContract } from './storage-driver.js';
export type { AroundCheck, Refusal, StorageDriverContractOptions } from './storage-driver.js';
export { randomStream, readAll, sha256Of } from './storage-streams.js';
export { widgetContract } from './widget.js';
export type { WidgetContractOptions } from './widget.js';
