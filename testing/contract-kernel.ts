import type { Kernel } from '../kernel/index.js';

/**
 * What a contract runner needs of a booted kernel: the kernel itself (registries, container, routes), its
 * URL and a fetch against it. `request` sets `x-test-identity` from `identity` (the test-identity fixture
 * plugin, or your own resolver, turns it into that role) and sends `json` as a JSON body. The handle the
 * project's `useTestKernel` returns is one; build your own around `createKernel` otherwise. A runner reads
 * it only inside its hooks and tests, so it may be a handle whose kernel boots in an earlier `before`.
 */
/** A fetch Response whose json() is typed for assertions. */
export type ContractResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface ContractKernel {
  readonly kernel: Kernel;
  readonly url: string;
  request(path: string, init?: RequestInit & { identity?: string; json?: unknown }): Promise<ContractResponse>;
}

/** A kernel a runner boots and closes itself (the plugin contract boots one per plugin). */
export interface ClosableContractKernel extends ContractKernel {
  close(): Promise<void>;
}
