import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { waitFor } from '../helpers/graphql-ws.js';
import { useTestKernel, type TestKernel } from '../helpers/kernel.js';
import { apiKey, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';
import { CmsError, createClient, subscriptions, type WebSocketConstructor } from '../helpers/sdk.js';

// The client SDK's GraphQL subscriptions helper (packages/sdk/src/subscriptions.ts) over a real WebSocket to the
// kernel's /api/graphql (graphql-transport-ws): events as an async iterator, a loop that stops ends the
// subscription on the server, refusals as CmsError. Node 20 has no global WebSocket without a flag, so these tests
// hand the helper the `ws` package's; the last two run the helper in a child process on the runtime's own global
// WebSocket (and without one).

const active = (t: TestKernel) => t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql').activeSubscriptions;
const ws = WebSocket as unknown as WebSocketConstructor;
const SDK = pathToFileURL(join(PROJECT_ROOT, 'packages', 'sdk', 'dist', 'index.js')).href;
const MAJOR = Number(process.versions.node.split('.')[0]);

/** The first value of an async iterator, or the error it throws. */
async function first<T>(iterator: AsyncIterator<T>): Promise<T> {
  const step = await iterator.next();
  if (step.done) throw new Error('the subscription ended without a value');
  return step.value;
}

async function rejection(promise: Promise<unknown>): Promise<CmsError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof CmsError) return err;
    throw err;
  }
  throw new Error('no error');
}

/** Runs a module in a child node with these flags; resolves to its stdout (rejects with stderr on failure). */
function runChild(flags: string[], source: string, env: Record<string, string>): { done: Promise<string> } {
  const child = spawn(process.execPath, [...flags, '--input-type=module', '-e', source], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const done = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => child.kill(), 30000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`child exited ${code}: ${err} (stdout: ${out})`));
    });
  });
  return { done };
}

describe('client SDK: GraphQL subscriptions over a real WebSocket (sqlite)', function () {
  this.timeout(60000);
  let blog: Blog;
  let key: string;
  const t = useTestKernel(SDK_KERNEL, {
    seed: async () => {
      blog = await seedBlog(t, []);
      key = await apiKey(blog.admin, 'live', ['content:read']);
    },
  });

  it('delivers created posts to an API key subscriber, and a loop that stops ends the subscription on the server', async function () {
    const live = subscriptions(createClient({ url: t.url, apiKey: key }), { webSocket: ws });
    try {
      const added = live.subscribe<{ postAdded: { _id: string; title: string } }>('subscription { postAdded { _id title } }');
      await waitFor('the subscription', () => active(t) === 1);
      const made = await blog.admin.collection('posts').create({ title: 'Live one', status: 'published' });
      const event = await first(added);
      expect(event.postAdded).to.deep.equal({ _id: made._id, title: 'Live one' });
      await added.return!(); // what `break` in a for-await loop calls
      await waitFor('the subscription to end on the server', () => active(t) === 0);
      expect(await added.next()).to.deep.equal({ value: undefined, done: true });
    } finally {
      live.close();
    }
  });

  it('carries several subscriptions on one socket; breaking out of a for-await loop stops only that one', async function () {
    const live = subscriptions(createClient({ url: t.url, apiKey: key }), { webSocket: ws });
    try {
      const added = live.subscribe<{ postAdded: { title: string } }>('subscription { postAdded { title } }');
      const deleted = live.subscribe<{ postDeleted: { _id: string } }>('subscription { postDeleted { _id } }');
      await waitFor('two subscriptions', () => active(t) === 2);
      const made = await blog.admin.collection('posts').create({ title: 'Short-lived', status: 'published' });
      for await (const event of added) {
        expect(event.postAdded.title).to.equal('Short-lived');
        break;
      }
      await waitFor('one subscription left', () => active(t) === 1);
      await blog.admin.collection('posts').delete(made._id);
      expect((await first(deleted)).postDeleted._id).to.equal(made._id);
    } finally {
      live.close();
    }
    await waitFor('the subscriptions to end', () => active(t) === 0);
  });

  it('a bad token closes the connection: the subscription throws SUBSCRIPTION_CLOSED with the close code', async function () {
    const live = subscriptions(createClient({ url: t.url, token: 'sck_not-a-real-key' }), { webSocket: ws });
    const err = await rejection(first(live.subscribe('subscription { postAdded { _id } }')));
    expect(err.code).to.equal('SUBSCRIPTION_CLOSED');
    expect(err.details.closeCode).to.equal(4403);
    live.close();
  });

  it('an operation the schema refuses throws its GraphQL code; the socket stays open for others', async function () {
    const live = subscriptions(createClient({ url: t.url, apiKey: key }), { webSocket: ws });
    try {
      const err = await rejection(first(live.subscribe('subscription { nothingAdded { _id } }')));
      expect(err.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      const added = live.subscribe<{ postAdded: { title: string } }>('subscription { postAdded { title } }');
      await waitFor('the subscription', () => active(t) === 1);
      await blog.admin.collection('posts').create({ title: 'After a refusal', status: 'published' });
      expect((await first(added)).postAdded.title).to.equal('After a refusal');
    } finally {
      live.close();
    }
    await waitFor('the subscriptions to end', () => active(t) === 0);
  });

  it("runs on the runtime's global WebSocket (Node 22+, or 20 with --experimental-websocket)", async function () {
    const source = `
      const { createClient, subscriptions } = await import(${JSON.stringify(SDK)});
      const live = subscriptions(createClient({ url: process.env.CMS_URL, apiKey: process.env.CMS_KEY }));
      for await (const event of live.subscribe('subscription { postAdded { title } }')) {
        console.log(JSON.stringify(event));
        break;
      }
      live.close();
    `;
    const child = runChild(MAJOR < 22 ? ['--experimental-websocket', '--no-warnings'] : [], source, { CMS_URL: t.url, CMS_KEY: key });
    await waitFor('the child subscription', () => active(t) === 1, 20000);
    await blog.admin.collection('posts').create({ title: 'To the global WebSocket', status: 'published' });
    expect(JSON.parse((await child.done).trim())).to.deep.equal({ postAdded: { title: 'To the global WebSocket' } });
  });

  it('without a WebSocket in the runtime and none given, the subscription throws WEBSOCKET_UNAVAILABLE', async function () {
    const source = `
      const { createClient, subscriptions } = await import(${JSON.stringify(SDK)});
      const live = subscriptions(createClient({ url: process.env.CMS_URL }));
      try {
        await live.subscribe('subscription { postAdded { title } }').next();
      } catch (err) {
        console.log(err.code);
      }
    `;
    const child = runChild(MAJOR < 22 ? [] : ['--no-experimental-websocket'], source, { CMS_URL: t.url });
    expect((await child.done).trim()).to.equal('WEBSOCKET_UNAVAILABLE');
  });
});
