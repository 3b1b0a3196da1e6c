import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { as, createCollections, dataOf } from '../helpers/content.js';
import { tempDir, useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 39, item 4: the signed-webhook receiver example (examples/webhook-receiver) as a user runs it — `node
// receiver.mjs` in its own process — against a real kernel's webhooks: the delivery accepted with a valid
// signature and stored once, repeats (redelivery, also after a restart) answered 2xx and dropped, a tampered body,
// a wrong or missing signature and a stale timestamp refused with 401. The root README shows its verification.

const EXAMPLE = join(PROJECT_ROOT, 'examples', 'webhook-receiver');

interface Running {
  url: string;
  child: ChildProcess;
  out: string[];
  stop(): Promise<void>;
}

/** Starts `node receiver.mjs` on a free loopback port; resolves once it says where it listens. */
function startExample(secret: string, eventsFile: string): Promise<Running> {
  const child = spawn(process.execPath, [join(EXAMPLE, 'receiver.mjs')], {
    cwd: EXAMPLE,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', CMS_WEBHOOK_SECRET: secret, EVENTS_FILE: eventsFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the receiver exited (${code}): ${err}`)));
    child.stdout!.on('data', (c: Buffer) => {
      out.push(...c.toString().split('\n').filter(Boolean));
      const listening = out.map((l) => /^Listening on (http:\/\/\S+)\/$/.exec(l)).find(Boolean);
      if (listening && out.length === 1) {
        const stop = () =>
          new Promise<void>((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), child.kill('SIGTERM'))));
        resolve({ url: `${listening[1]}/hook`, child, out, stop });
      }
    });
  });
}

const sign = (secret: string, t: number, body: string) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, withinMs = 15000): Promise<T> {
  const end = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const variant of DB_VARIANTS) {
  describe(`examples/webhook-receiver against a kernel (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(
      variant,
      { seed: async () => createCollections(t, { name: 'posts', fields: [{ name: 'title', type: 'text' }] }) },
      // The example listens on loopback: the operator switch lets the webhooks reach it (docs/features/webhooks.md).
      { config: { outbound: { allowPrivate: true }, plugins: { options: { webhooks: { pollMs: 50 } } } } as never },
    );
    let dir: string;
    let eventsFile: string;
    let receiver: Running | undefined;
    let hook: { _id: string; secret: string };
    const admin = () => as(t, 'admin');
    const stored = () =>
      existsSync(eventsFile)
        ? readFileSync(eventsFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const deliveries = async () => (await dataOf(await admin().get(`/api/webhooks/${hook._id}/deliveries`))).items;

    before(async () => {
      dir = tempDir('cms-webhook-example-');
      eventsFile = join(dir, 'events.jsonl');
      // The secret is answered at creation: create it disabled, start the receiver with the secret, then point it there.
      hook = await dataOf(
        await admin().post('/api/webhooks', { name: 'site', url: 'http://127.0.0.1:9/hook', events: ['on:create'], enabled: false }),
        201,
      );
      receiver = await startExample(hook.secret, eventsFile);
      await dataOf(await admin().patch(`/api/webhooks/${hook._id}`, { url: receiver.url, enabled: true }));
    });
    after(async () => {
      await receiver?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('accepts a signed delivery, stores and prints the event once, and answers repeats 2xx without storing them again', async function () {
      const created = await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Hello', status: 'published' }), 201);
      const [event] = await until('the stored event', () => stored().length > 0 && stored());
      expect(event).to.include({ event: 'on:create', tenantId: 'default' });
      expect(event.data.collection).to.equal('posts');
      expect(event.data.entry).to.include({ _id: created._id, title: 'Hello' });
      const log = await until('the delivery written succeeded', async () => {
        const items = await deliveries();
        return items[0]?.status === 'succeeded' && items;
      });
      expect(log).to.have.length(1);
      expect(log[0]).to.include({ _id: event.delivery, status: 'succeeded', responseStatus: 204 });
      await until('the printed line', () => receiver!.out.some((l) => l === `on:create posts ${created._id} (delivery ${event.delivery})`));

      // A redelivery keeps the id: answered 200, nothing stored or printed again.
      const again = await dataOf(await admin().post(`/api/webhooks/${hook._id}/deliveries/${event.delivery}/redeliver`));
      expect(again).to.include({ status: 'succeeded', responseStatus: 200 });
      // After a restart the stored ids still drop the repeat.
      await receiver!.stop();
      receiver = await startExample(hook.secret, eventsFile);
      await dataOf(await admin().patch(`/api/webhooks/${hook._id}`, { url: receiver.url }));
      const afterRestart = await dataOf(await admin().post(`/api/webhooks/${hook._id}/deliveries/${event.delivery}/redeliver`));
      expect(afterRestart).to.include({ status: 'succeeded', responseStatus: 200 });
      expect(stored()).to.have.length(1);
      expect(receiver!.out.filter((l) => l.includes(event.delivery))).to.deep.equal([]);
    });

    it('refuses a tampered body, a wrong or missing signature and a stale timestamp with 401, storing nothing', async function () {
      const before = stored().length;
      const body = JSON.stringify({
        id: 'forged-1',
        event: 'on:delete',
        createdAt: new Date().toISOString(),
        tenantId: 'default',
        data: {},
      });
      const post = (headers: Record<string, string>, payload = body) =>
        fetch(receiver!.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-cms-delivery': 'forged-1', ...headers },
          body: payload,
        });
      const good = sign(hook.secret, now(), body);
      expect((await post({ 'x-cms-signature': good }, body.replace('on:delete', 'on:create'))).status).to.equal(401); // tampered body
      expect((await post({ 'x-cms-signature': sign('whsec_not-the-secret', now(), body) })).status).to.equal(401); // another key
      expect((await post({ 'x-cms-signature': good.replace(/v1=./, (m) => (m.endsWith('0') ? 'v1=1' : 'v1=0')) })).status).to.equal(401);
      expect((await post({})).status).to.equal(401); // no signature
      expect((await post({ 'x-cms-signature': sign(hook.secret, now() - 600, body) })).status).to.equal(401); // a replay of 10 minutes ago
      expect(stored()).to.have.length(before);
      // The same body signed now with the secret is accepted: the refusals were the tampering, not the request.
      expect((await post({ 'x-cms-signature': sign(hook.secret, now(), body) })).status).to.equal(204);
      expect(stored().map((e) => e.delivery)).to.include('forged-1');
    });

    it("the root README's receiver section shows the example's verification, and links to it", function () {
      const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('## Receiving webhooks'));
      const block = /```js\n([\s\S]*?)```/.exec(section)![1]!;
      expect(section.slice(0, section.indexOf('```'))).to.include('examples/webhook-receiver');
      const code = readFileSync(join(EXAMPLE, 'receiver.mjs'), 'utf8');
      for (const paragraph of block.trim().split('\n\n')) expect(code).to.include(paragraph); // the same code, word for word
      expect(block).to.include('timingSafeEqual(given, expected)').and.include('TOLERANCE_SECONDS');
    });
  });
}
