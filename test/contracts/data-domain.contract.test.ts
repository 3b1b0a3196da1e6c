import { expect } from 'chai';
import type { Registries } from '../../kernel/registries/index.js';
import type { DataDomainDefinition } from '../../plugins/data-ops/public.js';
import { dataDomainContract } from '../../testing/index.js';
import { fixtureDomainPluginDir } from '../helpers/data-ops-fixture-domain.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

/**
 * The data-operation domain contract (testing/data-domain.ts, which plugin authors run against their own
 * domain), against every domain registered in a default kernel (the built-in domain plugins) plus the engine
 * tests' fixture domains. Inputs tried: `{}` (and for the fixture, a valid one). A domain may refuse an input
 * with a 4xx CmsError from validate(); it must never answer otherwise (5xx, a plain Error). Planning changes
 * nothing (snapshot before == after); a plan with no operations applies as a no-op.
 */
/** Inputs a domain is tried with, besides `{}`. */
const EXTRA_INPUTS: Record<string, unknown[]> = {
  fixture: [{ rows: [] }, { rows: [{ name: 'contract', value: '1' }] }],
  'fixture-undo': [{ rows: [] }],
};

describe('data-operation domain contract', function () {
  this.timeout(60000);
  let domains: DataDomainDefinition[] = [];

  const t = useTestKernel(() => ({ plugins: [fixturePlugin('test-identity'), fixtureDomainPluginDir()] }), {
    seed: async () => {
      domains = t.kernel.container.resolve<Registries>('registries').dataDomains.list() as unknown as DataDomainDefinition[];
    },
  });

  it('finds the registered domains (the fixture ones at least)', () => {
    expect(domains.map((d) => d.id)).to.include.members(['fixture', 'fixture-undo']);
  });

  dataDomainContract({ t, domains: () => domains, extraInputs: EXTRA_INPUTS });
});
