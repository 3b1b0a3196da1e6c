import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseBusyError, NestedWriteError, WriteGate, gateFor } from '../../kernel/db/write-gate.js';

/** SQLite's single-writer gate: FIFO order, timeouts, nested-write refusal, long-hold warning, per-file sharing. */
describe('unit: write gate', () => {
  it('runs writes one at a time, first come first served', async () => {
    const gate = new WriteGate({ waitMs: 1000 });
    const order: string[] = [];
    let inside = 0;
    let maxInside = 0;
    const write = (label: string, ms: number) =>
      gate.run(label, async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        order.push(`start ${label}`);
        await sleep(ms);
        order.push(`end ${label}`);
        inside--;
        return label;
      });
    const results = await Promise.all([write('a', 20), write('b', 1), write('c', 1)]);
    assert.deepEqual(results, ['a', 'b', 'c']);
    assert.equal(maxInside, 1);
    assert.deepEqual(order, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    const s = gate.snapshot();
    assert.equal(s.granted, 3);
    assert.equal(s.holder, null);
    assert.equal(s.waiting, 0);
  });

  it('a waiter that waits longer than waitMs fails with DatabaseBusyError (503) and the gate keeps working', async () => {
    const gate = new WriteGate({ waitMs: 30 });
    let release!: () => void;
    const holding = gate.run('long', () => new Promise<void>((r) => (release = r)));
    await assert.rejects(
      gate.run('late', async () => 'never'),
      (err: unknown) => err instanceof DatabaseBusyError && err.status === 503,
    );
    assert.equal(gate.snapshot().timedOut, 1);
    assert.equal(gate.snapshot().holder?.label, 'long');
    release();
    await holding;
    assert.equal(await gate.run('after', async () => 'ok'), 'ok');
  });

  it('a failing write releases the gate', async () => {
    const gate = new WriteGate({ waitMs: 200 });
    await assert.rejects(
      gate.run('boom', async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await gate.run('next', async () => 1), 1);
  });

  it('refuses a write started inside another gated write (it would wait for itself)', async () => {
    const gate = new WriteGate({ waitMs: 200 });
    await gate.run('outer', async () => {
      assert.equal(gate.holderHere(), 'outer');
      await assert.rejects(
        gate.run('inner', async () => 1),
        (err: unknown) => err instanceof NestedWriteError && /inner/.test(err.message) && /outer/.test(err.message),
      );
    });
    assert.equal(gate.holderHere(), null);
  });

  it("a write on another file's gate inside a gated write runs; the outer gate is still refused further in", async () => {
    const a = new WriteGate({ waitMs: 200 });
    const b = new WriteGate({ waitMs: 200 });
    await a.run('on a', async () => {
      assert.equal(b.holderHere(), null);
      const inner = await b.run('on b', async () => {
        assert.equal(a.holderHere(), 'on a');
        assert.equal(b.holderHere(), 'on b');
        await assert.rejects(
          a.run('a again', async () => 1),
          (err: unknown) => err instanceof NestedWriteError && /a again/.test(err.message) && /on a/.test(err.message),
        );
        return 'b done';
      });
      assert.equal(inner, 'b done');
      assert.equal(b.holderHere(), null);
    });
    assert.equal(a.holderHere(), null);
  });

  it('reports a write that holds the gate longer than longHoldMs', async () => {
    const held: Array<[string, number]> = [];
    const gate = new WriteGate({ waitMs: 500, longHoldMs: 20, onLongHold: (label, ms) => held.push([label, ms]) });
    await gate.run('quick', async () => undefined);
    await gate.run('slow', () => sleep(60));
    assert.equal(held.length, 1);
    assert.equal(held[0]![0], 'slow');
    assert.ok(held[0]![1] >= 20);
  });

  it('gateFor() shares one gate per file until its last user releases it', () => {
    let made = 0;
    const create = () => (made++, new WriteGate({ waitMs: 100 }));
    const file = `/tmp/unit-gate-${process.pid}-${Date.now()}.sqlite`;
    const a = gateFor(file, create);
    const b = gateFor(file, create);
    assert.equal(a.gate, b.gate);
    assert.equal(made, 1);
    a.release();
    a.release(); // twice counts once
    const c = gateFor(file, create);
    assert.equal(c.gate, a.gate, 'b still uses it');
    b.release();
    c.release();
    const d = gateFor(file, create);
    assert.notEqual(d.gate, a.gate, 'a new gate once every user released it');
    assert.equal(made, 2);
    d.release();
  });
});
