import { expect } from 'chai';
import { ContractError } from '../../kernel/errors.js';
import { createRegistries, Registry } from '../../kernel/registries/index.js';

/** Runs fn and returns the ContractError message it throws (fails the test when it does not throw). */
function contractError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ContractError);
    return (err as Error).message;
  }
  expect.fail('expected a ContractError');
}

const noop = () => undefined;
const storageDriver = (extra: Record<string, unknown> = {}) => ({
  id: 'object_store',
  kind: 'remote',
  put: noop,
  get: noop,
  head: noop,
  delete: noop,
  publicUrl: noop,
  ...extra,
});
const widget = (extra: Record<string, unknown> = {}) => ({
  id: 'visits',
  name: 'Visits',
  license: 'freemium',
  endpoint: '/api/widgets/visits',
  permission: 'dashboard:read',
  component: 'VisitsChart',
  ...extra,
});

describe('registry: contracts', () => {
  it('accepts an entry that meets its contract and returns it', () => {
    const { storageDrivers } = createRegistries();
    const driver = storageDriver();
    expect(storageDrivers.add(driver as any, 'media')).to.equal(driver);
    expect(storageDrivers.get('object_store')).to.equal(driver);
    expect(storageDrivers.has('object_store')).to.equal(true);
    expect(storageDrivers.has('other')).to.equal(false);
    expect(storageDrivers.list()).to.deep.equal([driver]);
    expect(storageDrivers.keys()).to.deep.equal(['object_store']);
    expect(storageDrivers.ownerOf('object_store')).to.equal('media');
  });

  it('a storage driver without delete: "Storage driver \'object_store\' does not implement delete()"', () => {
    const { storageDrivers } = createRegistries();
    const message = contractError(() => storageDrivers.add(storageDriver({ delete: undefined }) as any, 'media'));
    expect(message).to.equal("Storage driver 'object_store' does not implement delete()");
    expect(storageDrivers.has('object_store')).to.equal(false);
  });

  it('a function member of another type is reported as not implemented', () => {
    const { storageDrivers } = createRegistries();
    const message = contractError(() => storageDrivers.add(storageDriver({ publicUrl: 'https://cdn' }) as any));
    expect(message).to.equal("Storage driver 'object_store' does not implement publicUrl()");
  });

  it('a missing non-function member names the entry, the member and its type', () => {
    const { widgets } = createRegistries();
    const message = contractError(() => widgets.add(widget({ name: undefined }) as any));
    expect(message).to.equal("Widget 'visits' is missing name (string)");
  });

  it('a member of the wrong type names the entry, the member and what is expected', () => {
    const { importFormats, identityResolvers, graphql } = createRegistries();
    const format = { format: 'csv', label: 'CSV', extensions: ['.csv', 3], features: [], detect: noop, parseTask: 'parseCsv' };
    expect(contractError(() => importFormats.add(format as any))).to.equal(
      "Import format 'csv' has an invalid extensions: expected string[]",
    );
    expect(contractError(() => identityResolvers.add({ id: 'hdr', priority: '10', resolve: noop } as any))).to.equal(
      "Identity resolver 'hdr' has an invalid priority: expected number",
    );
    expect(contractError(() => graphql.add({ id: 'g', typeDefs: 'type Q { a: Int }', resolvers: [] } as any))).to.equal(
      "GraphQL contribution 'g' has an invalid resolvers: expected object",
    );
  });

  it('an enum member must be one of its values: widget license freemium or paid', () => {
    const { widgets } = createRegistries();
    const message = contractError(() => widgets.add(widget({ license: 'free' }) as any));
    expect(message).to.contain("Widget 'visits'");
    expect(message).to.contain('license');
    expect(message).to.contain("'freemium'");
    expect(message).to.contain("'paid'");
    expect(widgets.add(widget({ license: 'paid' }) as any).license).to.equal('paid');
  });

  it('an entry without its key field names the registry, the owner and the key field', () => {
    const { storageDrivers, jobHandlers } = createRegistries();
    expect(contractError(() => storageDrivers.add(storageDriver({ id: '' }) as any, 'media'))).to.equal(
      "Storage driver added by plugin 'media' has no id (string)",
    );
    expect(contractError(() => jobHandlers.add({ run: noop } as any, 'jobs'))).to.equal(
      "Job handler added by plugin 'jobs' has no type (string)",
    );
  });

  it('a duplicate key names both owners', () => {
    const { widgets } = createRegistries();
    widgets.add(widget() as any, 'analytics');
    const message = contractError(() => widgets.add(widget() as any, 'stats'));
    expect(message).to.contain("Widget 'visits'");
    expect(message).to.contain("'stats'");
    expect(message).to.contain("'analytics'");
    expect(widgets.ownerOf('visits')).to.equal('analytics');
    expect(widgets.list()).to.have.length(1);
  });

  it('checks optional members when present and accepts them when absent', () => {
    const { storageDrivers, widgets } = createRegistries();
    expect(contractError(() => storageDrivers.add(storageDriver({ restore: 'bin' }) as any))).to.equal(
      "Storage driver 'object_store' has an invalid restore: expected function",
    );
    expect(contractError(() => storageDrivers.add(storageDriver({ kind: 'cloud' }) as any))).to.match(/kind/);
    expect(contractError(() => widgets.add(widget({ category: 42 }) as any))).to.equal(
      "Widget 'visits' has an invalid category: expected string",
    );
    expect(() => storageDrivers.add(storageDriver({ restore: noop }) as any)).not.to.throw();
    expect(() => widgets.add(widget() as any)).not.to.throw();
  });

  it('keysOwnedBy lists the keys each owner added', () => {
    const { healthChecks } = createRegistries();
    const check = async () => ({ status: 'ok' as const });
    healthChecks.add({ id: 'db', check }, 'core');
    healthChecks.add({ id: 'queue', check }, 'jobs');
    healthChecks.add({ id: 'disk', check }, 'core');
    expect(healthChecks.keysOwnedBy('core')).to.deep.equal(['db', 'disk']);
    expect(healthChecks.keysOwnedBy('jobs')).to.deep.equal(['queue']);
    expect(healthChecks.keysOwnedBy('nobody')).to.deep.equal([]);
  });

  it('entries added without an owner belong to the kernel', () => {
    const { permissions } = createRegistries();
    permissions.add({ name: 'content:read', description: 'Read content' });
    expect(permissions.ownerOf('content:read')).to.equal('kernel');
    expect(permissions.keysOwnedBy('kernel')).to.deep.equal(['content:read']);
  });

  it('a custom Registry applies its own contract', () => {
    const registry = new Registry<{ key: string; mode: string; size: number }>('Thing', 'key', {
      required: { mode: ['a', 'b'] as const, size: 'number' },
    });
    expect(contractError(() => registry.add({ key: 't', mode: 'c', size: 1 }))).to.equal(
      "Thing 't' has an invalid mode: expected one of 'a', 'b'",
    );
    expect(contractError(() => registry.add({ key: 't', mode: 'a' } as any))).to.equal("Thing 't' is missing size (number)");
    registry.add({ key: 't', mode: 'b', size: 2 });
    expect(registry.get('t')?.size).to.equal(2);
  });

  it('each createRegistries() call returns fresh registries', () => {
    const one = createRegistries();
    const two = createRegistries();
    one.widgets.add(widget() as any);
    expect(two.widgets.has('visits')).to.equal(false);
  });
});
