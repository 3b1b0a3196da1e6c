import { expect } from 'chai';
import { assertUniqueIds, type DiscoveredPlugin } from '../../kernel/discovery.js';
import { BootError } from '../../kernel/errors.js';
import { parseManifest } from '../../kernel/manifest.js';
import { orderPlugins, type OrderInput } from '../../kernel/plugin-order.js';

const KERNEL = '1.4.0';

/** An in-memory discovered plugin whose manifest goes through the real manifest schema. */
function plugin(id: string, extra: Record<string, unknown> = {}, dir = `/plugins/${id}`): DiscoveredPlugin {
  const manifest = parseManifest({ id, name: `Plugin ${id}`, version: '1.0.0', kernel: '^1.0.0', ...extra }, `${dir}/plugin.json`);
  return { manifest, dir, source: 'path' };
}

function order(plugins: DiscoveredPlugin[], extra: Partial<OrderInput> = {}) {
  return orderPlugins({ plugins, disabled: [], enabled: [], kernelVersion: KERNEL, ...extra });
}

function orderError(plugins: DiscoveredPlugin[], extra: Partial<OrderInput> = {}): BootError {
  try {
    order(plugins, extra);
  } catch (err) {
    expect(err).to.be.instanceOf(BootError);
    return err as BootError;
  }
  expect.fail('orderPlugins should have thrown a BootError');
}

const ids = (list: DiscoveredPlugin[]) => list.map((p) => p.manifest.id);

describe('plugin order: orderPlugins', () => {
  it('puts dependencies before the plugins that require them, whatever the discovery order', () => {
    const result = order([plugin('app', { requires: ['lib', 'util'] }), plugin('lib', { requires: ['util'] }), plugin('util')]);
    expect(ids(result.ordered)).to.deep.equal(['util', 'lib', 'app']);
    expect(result.disabled).to.deep.equal([]);
    expect(result.unknownInConfig).to.deep.equal([]);
  });

  it('orders by phase (setup < core < full < warmed), dependencies first inside a phase', () => {
    const result = order([
      plugin('w', { phase: 'warmed' }),
      plugin('f2', { phase: 'full', requires: ['f1'] }),
      plugin('c', { phase: 'core', requires: ['s'] }),
      plugin('f1', { phase: 'full', requires: ['c'] }),
      plugin('s', { phase: 'setup' }),
      plugin('d'),
    ]);
    const seq = ids(result.ordered);
    expect(seq).to.have.members(['w', 'f2', 'c', 'f1', 's', 'd']);
    const phases = result.ordered.map((p) => p.manifest.phase);
    expect(phases).to.deep.equal(['setup', 'core', 'core', 'full', 'full', 'warmed']);
    expect(seq.indexOf('f1')).to.be.lessThan(seq.indexOf('f2'));
    expect(seq.indexOf('s')).to.be.lessThan(seq.indexOf('c'));
  });

  it('a missing dependency names both plugins', () => {
    const err = orderError([plugin('blog', { requires: ['comments'] })]);
    expect(err.message).to.contain("'blog'");
    expect(err.message).to.contain("'comments'");
    expect(err.message).to.contain('not installed');
  });

  it('a cycle prints its path: a -> b -> a', () => {
    const err = orderError([plugin('a', { requires: ['b'] }), plugin('b', { requires: ['a'] })]);
    expect(err.message).to.contain('cycle');
    expect(err.message).to.contain('a -> b -> a');
  });

  it('a three-plugin cycle prints the whole path', () => {
    const err = orderError([plugin('x', { requires: ['y'] }), plugin('y', { requires: ['z'] }), plugin('z', { requires: ['x'] })]);
    expect(err.message).to.contain('x -> y -> z -> x');
  });

  it('a cycle below an acyclic plugin prints only the cycle', () => {
    const err = orderError([plugin('top', { requires: ['p'] }), plugin('p', { requires: ['q'] }), plugin('q', { requires: ['p'] })]);
    expect(err.message).to.match(/: p -> q -> p$/);
  });

  it('a plugin requiring itself is a cycle', () => {
    const err = orderError([plugin('self', { requires: ['self'] })]);
    expect(err.message).to.contain('self -> self');
  });

  it('a kernel range mismatch names the plugin, the range and the kernel version', () => {
    const err = orderError([plugin('future', { kernel: '^2.0.0' })]);
    expect(err.message).to.contain("'future'");
    expect(err.message).to.contain('^2.0.0');
    expect(err.message).to.contain(KERNEL);
  });

  it('a disabled plugin with a kernel range mismatch does not stop ordering', () => {
    const result = order([plugin('future', { kernel: '^2.0.0' }), plugin('ok')], { disabled: ['future'] });
    expect(ids(result.ordered)).to.deep.equal(['ok']);
    expect(ids(result.disabled)).to.deep.equal(['future']);
  });

  it('a disabled dependency names both plugins and says disabled', () => {
    const err = orderError([plugin('shop', { requires: ['payments'] }), plugin('payments')], { disabled: ['payments'] });
    expect(err.message).to.contain("'shop'");
    expect(err.message).to.contain("'payments'");
    expect(err.message).to.contain('disabled');
  });

  it('enabledByDefault:false plugins are off unless named in enabled', () => {
    const plugins = [plugin('extra', { enabledByDefault: false }), plugin('base')];
    const off = order(plugins);
    expect(ids(off.ordered)).to.deep.equal(['base']);
    expect(ids(off.disabled)).to.deep.equal(['extra']);

    const on = order(plugins, { enabled: ['extra'] });
    expect(ids(on.ordered)).to.have.members(['extra', 'base']);
    expect(on.disabled).to.deep.equal([]);

    const both = order(plugins, { enabled: ['extra'], disabled: ['extra'] });
    expect(ids(both.ordered)).to.deep.equal(['base']);
  });

  it('requiring an opt-in plugin that is not enabled names both and says how to enable it', () => {
    const err = orderError([plugin('uses', { requires: ['optin'] }), plugin('optin', { enabledByDefault: false })]);
    expect(err.message).to.contain("'uses'");
    expect(err.message).to.contain("'optin'");
    expect(err.message).to.contain('plugins.enabled');
  });

  it('a dependency in a later phase is refused, naming both plugins and phases', () => {
    const err = orderError([plugin('early', { phase: 'setup', requires: ['late'] }), plugin('late', { phase: 'full' })]);
    expect(err.message).to.contain("'early'");
    expect(err.message).to.contain("'late'");
    expect(err.message).to.contain('setup');
    expect(err.message).to.contain('full');
  });

  it('a dependency in an earlier phase is allowed', () => {
    const result = order([plugin('late', { phase: 'warmed', requires: ['early'] }), plugin('early', { phase: 'setup' })]);
    expect(ids(result.ordered)).to.deep.equal(['early', 'late']);
  });

  it('reports ids named in config that no plugin has in unknownInConfig', () => {
    const result = order([plugin('real')], { disabled: ['ghost'], enabled: ['phantom', 'real'] });
    expect(result.unknownInConfig).to.have.members(['ghost', 'phantom']);
    expect(result.unknownInConfig).not.to.include('real');
    expect(ids(result.ordered)).to.deep.equal(['real']);
  });

  it('keeps disabled plugins out of the order and lists them', () => {
    const result = order([plugin('a'), plugin('b'), plugin('c', { requires: ['a'] })], { disabled: ['b'] });
    expect(ids(result.ordered)).to.deep.equal(['a', 'c']);
    expect(ids(result.disabled)).to.deep.equal(['b']);
  });

  it('an optional plugin neither orders the boot nor needs to be enabled or installed', () => {
    const dashboard = plugin('dashboard', { optional: ['setup', 'ghost'] });
    expect(ids(order([dashboard, plugin('setup')]).ordered)).to.deep.equal(['dashboard', 'setup']);
    const result = order([dashboard, plugin('setup')], { disabled: ['setup'] });
    expect(ids(result.ordered)).to.deep.equal(['dashboard']);
    expect(ids(result.disabled)).to.deep.equal(['setup']);
  });
});

describe('plugin order: assertUniqueIds', () => {
  it('accepts distinct ids', () => {
    expect(() => assertUniqueIds([plugin('a'), plugin('b')])).not.to.throw();
  });

  it('a duplicate id names both folders', () => {
    const first = plugin('dup', {}, '/srv/plugins/dup');
    const second = plugin('dup', {}, '/opt/vendor/dup-copy');
    try {
      assertUniqueIds([plugin('other'), first, second]);
      expect.fail('assertUniqueIds should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(BootError);
      const message = (err as Error).message;
      expect(message).to.contain("'dup'");
      expect(message).to.contain('/srv/plugins/dup');
      expect(message).to.contain('/opt/vendor/dup-copy');
    }
  });
});

describe('plugin order: parseManifest', () => {
  it('fills defaults', () => {
    const m = parseManifest({ id: 'p', name: 'P', version: '1.0.0', kernel: '^1.0.0' }, 'x');
    expect(m.phase).to.equal('core');
    expect(m.requires).to.deep.equal([]);
    expect(m.enabledByDefault).to.equal(true);
    expect(m.entry).to.equal('index.js');
  });

  it('refuses a bad id, an unknown field and an unknown provides key, naming where', () => {
    const bad = (raw: Record<string, unknown>) => {
      try {
        parseManifest({ id: 'p', name: 'P', version: '1.0.0', kernel: '^1.0.0', ...raw }, '/here/plugin.json');
      } catch (err) {
        expect(err).to.be.instanceOf(BootError);
        expect((err as Error).message).to.contain('/here/plugin.json');
        return (err as Error).message;
      }
      expect.fail('parseManifest should have thrown');
    };
    expect(bad({ id: 'Bad_Id' })).to.contain('id');
    expect(bad({ colour: 'red' })).to.contain('colour');
    expect(bad({ provides: { gadgets: ['g'] } })).to.contain('gadgets');
    expect(bad({ version: 'one' })).to.contain('version');
    expect(bad({ phase: 'later' })).to.contain('phase');
  });
});
