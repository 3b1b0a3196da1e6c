import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { EventBus, type BusEvent } from '../../kernel/events.js';
import { createLogger } from '../../kernel/logger.js';
import { CACHE_VARIANTS, REDIS_URL, uniqueName } from '../helpers/services.js';

const logger = createLogger('silent');
const redisVariant = CACHE_VARIANTS.find((v) => v.name === 'redis')!;

/** Lets handlers (run in a microtask after delivery) finish. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await tick();
}

/** Polls until the condition holds or the deadline passes; returns whether it held. */
async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

describe('event bus (memory)', function () {
  const buses: EventBus[] = [];
  const newBus = () => {
    const bus = new EventBus(logger);
    buses.push(bus);
    return bus;
  };

  after(async function () {
    for (const bus of buses.splice(0)) await bus.close();
  });

  it('delivers to subscribers of the name and to "*" subscribers, not to other names', async function () {
    const bus = newBus();
    expect(bus.transport).to.equal('memory');
    const named: BusEvent[] = [];
    const all: BusEvent[] = [];
    const other: BusEvent[] = [];
    bus.subscribe('content.saved', (e) => void named.push(e));
    bus.subscribe('*', (e) => void all.push(e));
    bus.subscribe('content.deleted', (e) => void other.push(e));

    await bus.publish('content.saved', { id: 7 });
    await bus.publish('user.login', { userId: 'u1' });
    await settle();

    expect(named).to.have.length(1);
    expect(named[0]).to.include({ name: 'content.saved', origin: bus.instanceId });
    expect(named[0]!.payload).to.deep.equal({ id: 7 });
    expect(named[0]!.at).to.match(/^\d{4}-\d{2}-\d{2}T/);
    expect(all.map((e) => e.name)).to.deep.equal(['content.saved', 'user.login']);
    expect(other).to.have.length(0);
  });

  it('stops delivering after unsubscribe', async function () {
    const bus = newBus();
    const seen: unknown[] = [];
    const seenAll: unknown[] = [];
    const off = bus.subscribe('tick', (e) => void seen.push(e.payload));
    const offAll = bus.subscribe('*', (e) => void seenAll.push(e.payload));
    await bus.publish('tick', 1);
    await settle();
    off();
    offAll();
    await bus.publish('tick', 2);
    await settle();
    expect(seen).to.deep.equal([1]);
    expect(seenAll).to.deep.equal([1]);
  });

  it('keeps delivering to other handlers when one throws or rejects', async function () {
    const bus = newBus();
    const seen: string[] = [];
    bus.subscribe('job.done', () => {
      throw new Error('handler bug');
    });
    bus.subscribe('job.done', async () => {
      throw new Error('async handler bug');
    });
    bus.subscribe('job.done', (e) => void seen.push(`named:${e.payload}`));
    bus.subscribe('*', (e) => void seen.push(`all:${e.payload}`));

    await bus.publish('job.done', 'a');
    await bus.publish('job.done', 'b');
    await settle();
    expect(seen).to.deep.equal(['named:a', 'all:a', 'named:b', 'all:b']);
  });

  it('isolates two memory buses from each other', async function () {
    const a = newBus();
    const b = newBus();
    const onB: BusEvent[] = [];
    b.subscribe('*', (e) => void onB.push(e));
    await a.publish('x', 1);
    await settle();
    expect(onB).to.have.length(0);
  });
});

describe('event bus (redis)', function () {
  this.timeout(20000);
  const buses: EventBus[] = [];

  before(function () {
    if (!redisVariant.available) {
      console.log(`      ${redisVariant.skipReason}`);
      this.skip();
    }
  });

  after(async function () {
    for (const bus of buses.splice(0)) await bus.close();
  });

  async function connected(prefix: string): Promise<EventBus> {
    const bus = new EventBus(logger);
    buses.push(bus);
    await bus.connectRedis({ url: REDIS_URL }, prefix);
    return bus;
  }

  it('delivers an event exactly once on every instance with the same prefix and not to another prefix', async function () {
    const prefix = uniqueName('evtest');
    const otherPrefix = uniqueName('evtest');
    const a = await connected(prefix);
    const b = await connected(prefix);
    const c = await connected(otherPrefix);
    const d = await connected(otherPrefix);
    expect(a.transport).to.equal('redis');

    const received = { a: [] as BusEvent[], b: [] as BusEvent[], c: [] as BusEvent[] };
    const named = { a: 0, b: 0 };
    a.subscribe('*', (e) => void received.a.push(e));
    b.subscribe('*', (e) => void received.b.push(e));
    c.subscribe('*', (e) => void received.c.push(e));
    a.subscribe('content.saved', () => void named.a++);
    b.subscribe('content.saved', () => void named.b++);

    await a.publish('content.saved', { id: 42 });
    expect(await waitFor(() => received.b.length >= 1), 'B received the event').to.equal(true);

    // Markers published after the event: Redis delivers a channel's messages in order on each
    // connection, so once a marker arrives, any duplicate (or leak) of the event would have too.
    await b.publish('marker', 'b'); // reaches A through Redis (after A's own echo, if any)
    await a.publish('marker', 'a'); // reaches B through Redis
    await d.publish('marker', 'd'); // reaches C on its own channel
    const arrived = (list: BusEvent[], from: string) => () => list.some((e) => e.name === 'marker' && e.payload === from);
    expect(await waitFor(arrived(received.a, 'b')), 'marker reached A').to.equal(true);
    expect(await waitFor(arrived(received.b, 'a')), 'marker reached B').to.equal(true);
    expect(await waitFor(arrived(received.c, 'd')), 'marker reached C').to.equal(true);

    const saved = (list: BusEvent[]) => list.filter((e) => e.name === 'content.saved');
    expect(saved(received.a)).to.have.length(1);
    expect(saved(received.b)).to.have.length(1);
    expect(named).to.deep.equal({ a: 1, b: 1 });
    expect(saved(received.b)[0]).to.deep.include({ name: 'content.saved', origin: a.instanceId, payload: { id: 42 } });
    expect(saved(received.b)[0]!.at).to.equal(saved(received.a)[0]!.at);
    expect(saved(received.c)).to.have.length(0);
    // A and B each saw their own marker locally and the other's through Redis, once each.
    const markers = (list: BusEvent[]) =>
      list
        .filter((e) => e.name === 'marker')
        .map((e) => e.payload)
        .sort();
    expect(markers(received.a)).to.deep.equal(['a', 'b']);
    expect(markers(received.b)).to.deep.equal(['a', 'b']);
  });

  it('stops delivering after close', async function () {
    const prefix = uniqueName('evtest');
    const a = await connected(prefix);
    const b = await connected(prefix);
    const third = await connected(prefix);
    const onB: BusEvent[] = [];
    const onThird: BusEvent[] = [];
    b.subscribe('*', (e) => void onB.push(e));
    third.subscribe('*', (e) => void onThird.push(e));
    await b.close();
    await a.publish('after-close', 1);
    expect(await waitFor(() => onThird.length === 1), 'the open instance received it').to.equal(true);
    expect(onB).to.have.length(0);
    expect(b.transport).to.equal('memory');
  });
});
