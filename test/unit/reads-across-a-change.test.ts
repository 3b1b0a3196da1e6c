import { expect } from 'chai';
import pino from 'pino';
import { EVENTS_RESYNC, defineEvent, type BusEvent } from '../../kernel/events.js';
import { follow, followEach } from '../../kernel/follow.js';
import { guestGrants, guestResolver } from '../../plugins/auth/identity-resolvers.js';
import { GUEST_GRANTS_CHANGED } from '../../plugins/auth/public.js';
import { MaintenanceFlags } from '../../plugins/maintenance/maintenance-flags.js';
import { SETTING_CHANGED } from '../../kernel/settings/events.js';

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

/** A bus that records subscriptions; `emit` delivers like the event bus (handlers may be async). */
function testBus() {
  const handlers = new Map<string, Set<(e: BusEvent<any>) => void | Promise<void>>>();
  return {
    subscribe(name: string, h: (e: BusEvent<any>) => void | Promise<void>) {
      handlers.set(name, (handlers.get(name) ?? new Set()).add(h));
      return () => void handlers.get(name)!.delete(h);
    },
    async emit(name: string, payload: unknown = {}) {
      for (const h of handlers.get(name) ?? []) await h({ name, payload, at: '', origin: 'other' });
    },
    count: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
  };
}

const CHANGED = defineEvent<{ key: string; value?: number }>('test:changed');
const silent = pino({ level: 'silent' });

describe('follow: an in-memory copy kept in step across instances', function () {
  function counter() {
    let reads: Array<ReturnType<typeof gate<number>>> = [];
    return {
      load: () => {
        const g = gate<number>();
        reads.push(g);
        return g.promise;
      },
      open(value: number) {
        const pending = reads;
        reads = [];
        for (const r of pending) r.open(value);
      },
      get pending() {
        return reads.length;
      },
    };
  }

  it('reads once at boot, applies announced changes, and keeps no re-read that ran across one', async function () {
    const bus = testBus();
    const source = counter();
    const copy = follow(bus, silent, {
      name: 'test copy',
      load: source.load,
      on: [CHANGED],
      apply: (_n, e) => (e as BusEvent<{ value?: number }>).payload.value,
      initial: -1,
    });
    expect(copy.current()).to.equal(-1);
    source.open(1);
    await copy.ready();
    expect(copy.current()).to.equal(1);
    // A re-read starts, a change is announced while it runs, then the read arrives with the old value.
    const reread = copy.refresh();
    await tick();
    await bus.emit(CHANGED, { key: 'a', value: 2 });
    expect(copy.current()).to.equal(2);
    source.open(1);
    await reread;
    expect(copy.current()).to.equal(2);
    // With nothing announced meanwhile, a re-read replaces the copy (writes that bypass the events).
    const next = copy.refresh();
    await tick();
    source.open(3);
    await next;
    expect(copy.current()).to.equal(3);
    copy.close();
    expect(bus.count()).to.equal(0);
  });

  it('re-reads after a bus loss (EVENTS_RESYNC) and after a change it cannot apply', async function () {
    const bus = testBus();
    const source = counter();
    const copy = follow(bus, silent, { name: 'test copy', load: source.load, on: [CHANGED], initial: 0 });
    source.open(1);
    await copy.ready();
    const resync = bus.emit(EVENTS_RESYNC);
    await tick();
    expect(source.pending).to.equal(1);
    source.open(5);
    await resync;
    expect(copy.current()).to.equal(5);
    const changed = bus.emit(CHANGED, { key: 'a' });
    await tick();
    source.open(6);
    await changed;
    expect(copy.current()).to.equal(6);
    copy.close();
  });

  it('a failed first read leaves the initial value; the backstop refresh runs every refreshMs until closed', async function () {
    const bus = testBus();
    let reads = 0;
    const copy = follow(bus, silent, {
      name: 'test copy',
      load: async () => {
        reads++;
        if (reads === 1) throw new Error('down');
        return reads;
      },
      refreshMs: 10,
      initial: 0,
    });
    await copy.ready();
    expect(copy.current()).to.equal(0);
    await new Promise((resolve) => setTimeout(resolve, 35));
    expect(copy.current()).to.be.greaterThan(1);
    copy.close();
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads).to.equal(after);
  });

  it('with maxAgeMs: read on first use, shared by concurrent callers, dropped by a change', async function () {
    const bus = testBus();
    const source = counter();
    const copy = follow(bus, silent, { name: 'lazy', load: source.load, on: [CHANGED], maxAgeMs: 60_000, initial: 0 });
    await copy.ready();
    expect(source.pending).to.equal(0);
    const a = copy.get();
    const b = copy.get();
    await tick();
    expect(source.pending).to.equal(1);
    source.open(7);
    expect([await a, await b]).to.deep.equal([7, 7]);
    expect(await copy.get()).to.equal(7);
    await bus.emit(CHANGED, { key: 'a' });
    const c = copy.get();
    await tick();
    source.open(8);
    expect(await c).to.equal(8);
    copy.close();
  });

  it('followEach: per key, a read across a drop answers once but is not kept', async function () {
    const bus = testBus();
    const reads: Array<ReturnType<typeof gate<string>>> = [];
    const each = followEach(bus, {
      name: 'per key',
      load: () => {
        const g = gate<string>();
        reads.push(g);
        return g.promise;
      },
      on: [CHANGED],
      keysOf: (e) => [(e as BusEvent<{ key: string }>).payload.key],
      maxAgeMs: 60_000,
    });
    const first = each.get('a');
    await tick();
    await bus.emit(CHANGED, { key: 'a' });
    reads[0]!.open('old');
    expect(await first).to.equal('old');
    const second = each.get('a');
    await tick();
    expect(reads).to.have.length(2);
    reads[1]!.open('new');
    expect(await second).to.equal('new');
    expect(await each.get('a')).to.equal('new');
    expect(reads).to.have.length(2);
    await bus.emit(EVENTS_RESYNC);
    expect(each.size).to.equal(0);
    each.close();
    expect(bus.count()).to.equal(0);
  });
});

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
    const flags = new MaintenanceFlags(
      (o) => follow(bus as never, silent, o),
      () => settings as never,
      silent,
      0,
    );
    // Boot: both settings read, maintenance off.
    await tick();
    for (const r of reads) r.open(new Map());
    await flags.ready();
    expect(flags.isOn('default')).to.equal(false);

    // A re-read starts (as the refresh timer would) and reads the table before the change commits...
    reads = [];
    const reread = flags.refresh();
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
    const next = flags.refresh();
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
    const bus = testBus();
    const guest = guestResolver();
    guest.follow(guestGrants((o) => followEach(bus, o), ctx.state.scope.cradle.users));
    const first = guest.resolve(ctx as never);
    await tick();
    // The grant of content:read is announced while the read of the old grants is on its way.
    await bus.emit(GUEST_GRANTS_CHANGED, { tenantId: 'default' });
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
