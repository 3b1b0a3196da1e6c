import { expect } from 'chai';
import type { ClosableContractKernel, ContractKernel } from './contract-kernel.js';

const GARBAGE_BODIES: Array<[Record<string, string>, string]> = [
  [{ 'content-type': 'application/json' }, '{"a":'],
  [{ 'content-type': 'application/json' }, '[]'],
  [{ 'content-type': 'application/json' }, 'null'],
  [{ 'content-type': 'text/plain' }, 'hello'],
  [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"not":"gzip"}'],
];

export interface PluginContractOptions {
  /** The plugin's id (its manifest's `id`). */
  id: string;
  /**
   * Boots a kernel with the plugin enabled (`plugins.paths` naming its folder) and what it requires; closed
   * after the test. Requests are made as a guest and with `x-test-identity: viewer` and `admin`: boot the
   * test-identity fixture plugin (or a resolver of your own for these roles) to be called as them too.
   */
  boot(): Promise<ClosableContractKernel>;
}

/**
 * Registers the plugin contract as `describe('plugin contract: <id>')`: the plugin boots on its own (with
 * what it requires), every route it declares is in the OpenAPI document, and no route answers 500 to missing
 * or garbage input, whoever calls. Needs mocha and chai (dev dependencies).
 */
export function pluginContract({ id, boot }: PluginContractOptions): void {
  describe(`plugin contract: ${id}`, function () {
    this.timeout(60000);

    it('boots, documents every route, and never answers 500 to bad input', async function () {
      const t = await boot();
      try {
        await checkPlugin(t, id);
      } finally {
        await t.close();
      }
    });
  });
}

async function checkPlugin(t: ContractKernel, id: string): Promise<void> {
  const record = t.kernel.loader.describe().find((r) => r.id === id);
  expect(record?.state, `${id} state`).to.equal('booted');
  const doc = await (await t.request('/api/openapi.json')).json();
  const routes = t.kernel.routes.list().filter((r) => r.owner === id);
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path} missing from OpenAPI`).to.be.an('object');
    const url = route.path.replace(/:(\w+)/g, '%E2%80%AE..%2F');
    for (const identity of [undefined, 'viewer', 'admin']) {
      const attempts: Array<RequestInit & { identity?: string }> = [{ method: route.method, identity }];
      if (route.method !== 'GET' && route.method !== 'DELETE') {
        for (const [headers, body] of GARBAGE_BODIES) attempts.push({ method: route.method, identity, headers, body });
      }
      for (const init of attempts) {
        const res = await t.request(`${url}?limit=-1&page=x&id[]=1`, init);
        const what = `${init.method} ${url} as ${identity ?? 'guest'} with ${String(init.body)}: ${res.status}`;
        expect(res.status < 500 || res.status === 503, what).to.equal(true);
        const body = await res.text();
        expect(body, 'stack trace in a response').to.not.match(/\n\s+at .+\(.+:\d+:\d+\)/);
      }
    }
  }
}
