import { expect } from 'chai';
import { join } from 'node:path';
import { discoverFolder } from '../../kernel/discovery.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { fixturePlugin, startTestKernel } from '../helpers/kernel.js';

/**
 * The contract every shipped plugin meets, run against each one: it boots on its own (with what it
 * requires), every route it declares is in the OpenAPI document, and no route answers 500 to missing
 * or garbage input, whoever calls. Built-in plugins load anyway; the others load through plugins.paths.
 */
const shipped = [
  ...discoverFolder(join(DIST_ROOT, 'plugins')).map((p) => ({ id: p.manifest.id, path: null as string | null })),
  { id: 'hello', path: join(PROJECT_ROOT, 'examples', 'hello-plugin') },
  { id: 'bench-hash', path: join(DIST_ROOT, 'bench', 'plugins', 'bench-hash') },
];

const GARBAGE_BODIES: Array<[Record<string, string>, string]> = [
  [{ 'content-type': 'application/json' }, '{"a":'],
  [{ 'content-type': 'application/json' }, '[]'],
  [{ 'content-type': 'application/json' }, 'null'],
  [{ 'content-type': 'text/plain' }, 'hello'],
  [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"not":"gzip"}'],
];

for (const plugin of shipped) {
  describe(`plugin contract: ${plugin.id}`, function () {
    this.timeout(60000);

    it('boots, documents every route, and never answers 500 to bad input', async function () {
      const paths = [fixturePlugin('test-identity'), ...(plugin.path ? [plugin.path] : [])];
      // The setup plugin is checked on a completed instance (headless setup); before that every route redirects.
      const setup = plugin.id === 'setup';
      const t = await startTestKernel({
        plugins: paths,
        setup,
        config: setup
          ? {
              plugins: {
                options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'contract@example.com', password: 'contract password' } } },
              },
            }
          : {},
      });
      try {
        const record = t.kernel.loader.describe().find((r) => r.id === plugin.id);
        expect(record?.state, `${plugin.id} state`).to.equal('booted');
        const doc = await (await t.request('/api/openapi.json')).json();
        const routes = t.kernel.routes.list().filter((r) => r.owner === plugin.id);
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
      } finally {
        await t.close();
      }
    });
  });
}
