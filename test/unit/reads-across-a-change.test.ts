import { expect } from 'chai';
import pino from 'pino';
import { guestResolver } from '../../plugins/auth/identity-resolvers.js';
import { MaintenanceFlags } from '../../plugins/maintenance/maintenance-flags.js';
import { SETTING_CHANGED } from '../../plugins/setup/public.js';

/**
 * In-memory copies that follow change events from every instance must not keep a read that started
 * before a change and finished after its event: that read may predate the change, and keeping it would
 * bring the old value back until the next re-read (30-60 s).
 */

/** A promise the test settles by hand. */
function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('in-memory copies and a change announced during their re-read', function () {
  it('maintenance flags: a periodic re-read that started before MAINTENANCE_MODE was switched on does not switch it off again', async function () {
    const handlers = new Map<string, (e: { payload: unknown }) => void | Promise<void>>();
    const bus = {
      subscribe(name: string, h: (e: { payload: unknown }) => void | Promise<void>) {
        handlers.set(name, h);
        return () => undefined;
      },
    };
    const handler = () => handlers.get(SETTING_CHANGED)!;
    let reads: Array<ReturnType<typeof gate<Map<string, unknown>>>> = [];
    const settings = {
      get: async () => undefined,
      valuesOf: () => {
        const g = gate<Map<string, unknown>>();
        reads.push(g);
        return g.promise;
      },
    };
    const flags = new MaintenanceFlags(() => settings as never, pino({ level: 'silent' }));
    // Boot: both settings read, maintenance off.
    const booted = flags.connect(bus, 0);
    await tick();
    for (const r of reads) r.open(new Map());
    await booted;
    expect(flags.isOn('default')).to.equal(false);

    // A re-read starts (as the refresh timer would) and reads the table before the change commits...
    reads = [];
    const reread = flags.load();
    await tick();
    // ...the change is announced (and applied) while that read is still on its way...
    await handler()({ payload: { tenantId: 'default', key: 'MAINTENANCE_MODE', value: true } });
    expect(flags.isOn('default')).to.equal(true);
    // ...and the read arrives with the old value: it must not win.
    for (const r of reads) r.open(new Map([['default', false]]));
    await reread;
    expect(flags.isOn('default')).to.equal(true);

    // A re-read with nothing announced during it still replaces the copy (writes that bypass the events).
    reads = [];
    const next = flags.load();
    await tick();
    for (const r of reads) r.open(new Map([['default', false]]));
    await next;
    expect(flags.isOn('default')).to.equal(false);
  });

  it('guest permissions: a read that started before the guest grants changed answers once but is not kept', async function () {
    const reads: Array<ReturnType<typeof gate<string[]>>> = [];
    const ctx = {
      hostname: 'cms.example',
      state: {
        scope: {
          cradle: {
            tenants: { fromHostname: async () => 'default' },
            users: {
              permissionsOf: () => {
                const g = gate<string[]>();
                reads.push(g);
                return g.promise;
              },
            },
          },
        },
      },
    };
    const guest = guestResolver();
    const first = guest.resolve(ctx as never);
    await tick();
    // The grant of content:read is announced while the read of the old grants is on its way.
    guest.forget('default');
    reads[0]!.open([]);
    expect((await first)!.permissions).to.deep.equal([]);
    // The next guest request reads again and sees the grant (the old read was not kept for a minute).
    const second = guest.resolve(ctx as never);
    await tick();
    expect(reads).to.have.length(2);
    reads[1]!.open(['content:read']);
    expect((await second)!.permissions).to.deep.equal(['content:read']);
    // And that one, with no change during it, is kept.
    expect((await guest.resolve(ctx as never))!.permissions).to.deep.equal(['content:read']);
    expect(reads).to.have.length(2);
  });
});
