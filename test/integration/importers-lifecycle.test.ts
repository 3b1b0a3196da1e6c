import { expect } from 'chai';
import type { AuditLog } from '../../kernel/audit.js';
import type { DbLock } from '../../kernel/db/lock.js';
import { as, dataOf } from '../helpers/content.js';
import { openSse } from '../helpers/data-ops-sse.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/** A CSV with an id column (the ledger's external id), `n` rows, titles with a suffix. */
const csv = (n: number, opts: { prefix?: string; suffix?: string } = {}) =>
  `id,title,price\n${Array.from({ length: n }, (_, i) => `${opts.prefix ?? 'r'}${i + 1},Item ${i + 1}${opts.suffix ?? ''},${i + 0.5}`).join('\n')}\n`;

/**
 * The external importers on the data-operation lifecycle (domain `importer`): preview stores an engine
 * plan, run goes through the engine's lock, audit entry, completion event and (at or above 100 entities)
 * its background job; modes add and merge; a run that fails as a whole removes what it created.
 */
for (const variant of DB_VARIANTS) {
  describe(`importers on the data-operation lifecycle (${variant.name})`, function () {
    this.timeout(120000);

    const validate = async (content: string, filename: string, identity = 'admin') => {
      const fd = new FormData();
      fd.append('file', new Blob([content]), filename);
      const data = await dataOf(await t.request('/api/importers/validate', { method: 'POST', body: fd, identity }));
      expect(data.valid, JSON.stringify(data)).to.equal(true);
      return data.uploadId as string;
    };
    const preview = async (uploadId: string, extra: Record<string, unknown> = {}, identity = 'admin') =>
      dataOf(await as(t, identity).post('/api/importers/preview', { format: 'csv', uploadId, ...extra }));
    const run = (planId: string, identity = 'admin') => as(t, identity).post('/api/importers/run', { planId, confirmed: true });
    const waitForJob = async (jobId: string) => {
      for (let i = 0; i < 1200; i++) {
        const job = await dataOf(await as(t, 'admin').get(`/api/importers/jobs/${jobId}`));
        if (job.status !== 'processing') return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('job did not finish');
    };
    const total = async (collection: string) => (await dataOf(await as(t, 'admin').get(`/api/collections/${collection}?limit=1`))).total;
    const auditOf = async (planId: string) => {
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      const { items } = await audit.list({ tenantId: 'default', limit: 100 });
      return items.filter((e) => e.planId === planId);
    };
    const auditFor = async (planId: string) => {
      for (let i = 0; i < 100; i++) {
        const entries = await auditOf(planId);
        if (entries.length) return entries;
        await new Promise((r) => setTimeout(r, 50));
      }
      return [];
    };
    const createCollection = async (name: string) =>
      dataOf(
        await as(t, 'admin').post('/api/collections', {
          name,
          fields: [
            { name: 'title', type: 'text' },
            { name: 'price', type: 'number' },
          ],
        }),
        201,
      );

    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { importers: { batchSize: 20 }, 'data-ops': { lockWaitMs: 500 } } } },
      },
      {
        variant,
        seed: async () => {
          for (const name of ['items', 'others', 'boom']) await createCollection(name);
        },
      },
    );

    it('preview stores an engine plan (domain importer): planHash, risk, summary, expiresAt beside the importer fields', async () => {
      const uploadId = await validate(csv(3, { prefix: 'pv' }), 'items.csv');
      const plan = await preview(uploadId);
      expect(plan).to.include({ format: 'csv', scaffold: false, mode: 'add', risk: 'safe', requiresConfirmation: false });
      expect(plan.planId).to.match(/^[0-9a-f-]{36}$/);
      expect(plan.planHash).to.match(/^[0-9a-f]{64}$/);
      expect(plan.summary).to.deep.equal({ created: 3, updated: 0, deleted: 0, skipped: 0, failed: 0 });
      expect(plan.operations).to.deep.equal([
        {
          action: 'create',
          sourceType: 'rows',
          targetCollection: 'items',
          count: 3,
          target: 'existing',
          statuses: 'draft',
          emptyFields: [],
          requiredMissing: [],
          // The CSV's id column has no field in items: it is the record's external id (the ledger), not content.
          unmappedFields: ['id'],
        },
      ]);
      expect(Date.parse(plan.expiresAt)).to.be.greaterThan(Date.now());
      const stored = await t.kernel.container.resolve<any>('dataOpsPlans').get(plan.planId, 'default');
      expect(stored).to.include({ domain: 'importer', planHash: plan.planHash, mode: 'add', status: 'pending' });
      expect(stored.operations.map((o: any) => `${o.action} ${o.type} ${o.target} ${o.count}`)).to.deep.equal([
        'create import csv 0',
        'create entry rows -> items 3',
      ]);
      // An entity without a target collection is a warning (risk warning), not a blocked reason.
      const other = await preview(await validate(csv(2, { prefix: 'nc' }), 'nowhere.csv'));
      expect(other.risk).to.equal('warning');
      expect(other.blockedReasons).to.deep.equal([]);
      expect(other.warnings[0].message).to.match(
        /rows: 2 record\(s\) not imported: The rows need a new collection 'nowhere': allow the import to create new collections, or choose one of your collections/,
      );
    });

    it('an inline run writes one audit entry (domain importer) and a completion event on /api/data-ops/events', async () => {
      const stream = await openSse(`${t.url}/api/data-ops/events?domain=importer`, { 'x-test-identity': 'editor' });
      try {
        const plan = await preview(await validate(csv(5, { prefix: 'in' }), 'items.csv', 'editor'), {}, 'editor');
        const res = await run(plan.planId, 'editor');
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body).to.include({ success: true, status: 'processing' });
        expect(body.message).to.match(/inline/);
        const job = await dataOf(await as(t, 'editor').get(`/api/importers/jobs/${body.jobId}`));
        expect(job.status).to.equal('completed');
        expect(job.results.rows).to.include({ imported: 5, failed: 0 });
        const event = await stream.next((e) => e.event === 'completed' && e.data.planId === plan.planId);
        expect(event.data).to.include({ domain: 'importer', jobId: null, tenantId: 'default', outcome: 'success' });
        expect(event.data.summary).to.deep.equal({ created: 5, updated: 0, deleted: 0, skipped: 0, failed: 0 });
        const entries = await auditFor(plan.planId);
        expect(entries).to.have.length(1);
        expect(entries[0]).to.include({ domain: 'importer', operation: 'apply', mode: 'add', outcome: 'success' });
        expect(entries[0]!.actor).to.deep.equal({ userId: 'user-editor', tenantId: 'default' });
        expect(entries[0]!.summary).to.deep.equal(event.data.summary);
        // The plan is applied: the importer's own refusal of a second run stays.
        const again = await run(plan.planId, 'editor');
        expect(again.status).to.equal(409);
        expect((await again.json()).error).to.equal('IMPORT_ALREADY_RUN');
      } finally {
        stream.close();
      }
    });

    it('at or above 100 entities the run is the engine job: GET /api/importers/jobs, audit entry and completion event with the jobId', async () => {
      const stream = await openSse(`${t.url}/api/data-ops/events?domain=importer`, { 'x-test-identity': 'admin' });
      try {
        const plan = await preview(await validate(csv(150, { prefix: 'bg' }), 'bulk.csv'), { scaffold: true });
        expect(plan.summary.created).to.equal(150);
        const body = await (await run(plan.planId)).json();
        expect(body).to.include({ success: true, status: 'processing' });
        expect(body.message).to.match(/background/);
        const job = await waitForJob(body.jobId);
        expect(job.status, JSON.stringify(job)).to.equal('completed');
        expect(job.results.rows).to.include({ imported: 150, failed: 0 });
        expect(await total('bulk')).to.equal(150);
        const event = await stream.next((e) => e.event === 'completed' && e.data.planId === plan.planId, 20000);
        expect(event.data).to.include({ domain: 'importer', outcome: 'success' });
        expect(event.data.jobId).to.be.a('string');
        expect(event.data.summary).to.include({ created: 150, failed: 0 });
        // The engine job is marked completed just after its completion event.
        let mine: any;
        for (let i = 0; i < 200; i++) {
          const list = await dataOf(await as(t, 'viewer').get('/api/importers/jobs'));
          mine = list.jobs.find((j: any) => j.importJobId === body.jobId);
          if (mine?.status === 'completed') break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(mine).to.include({ jobId: event.data.jobId, domain: 'importer', status: 'completed', outcome: 'success' });
        expect(mine.summary).to.include({ created: 150 });
        // ?jobId= takes the engine job id or the import job id.
        for (const id of [event.data.jobId, body.jobId]) {
          const one = await dataOf(await as(t, 'viewer').get(`/api/importers/jobs?jobId=${id}`), 200);
          expect(one.jobs.map((j: any) => j.jobId)).to.deep.equal([event.data.jobId]);
        }
        expect((await as(t, 'viewer').get('/api/importers/jobs?jobId=nope')).status).to.equal(404);
        const entries = await auditFor(plan.planId);
        expect(entries).to.have.length(1);
        expect(entries[0]).to.include({ domain: 'importer', operation: 'apply', outcome: 'success' });
      } finally {
        stream.close();
      }
    });

    it('modes: re-importing a changed CSV skips the known records in add and updates them in merge', async () => {
      const first = await preview(await validate(csv(4, { prefix: 'md' }), 'others.csv'));
      expect((await run(first.planId)).status).to.equal(200);
      expect(await total('others')).to.equal(4);
      const changed = csv(4, { prefix: 'md', suffix: ' (edited)' });

      const add = await preview(await validate(changed, 'others.csv'));
      expect(add.mode).to.equal('add');
      const addJob = await waitForJob((await (await run(add.planId)).json()).jobId);
      expect(addJob.results.rows).to.include({ imported: 0, skipped: 4, updated: 0 });
      const [addAudit] = await auditFor(add.planId);
      expect(addAudit).to.include({ mode: 'add', outcome: 'success' });
      expect(addAudit!.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 4, failed: 0 });

      const merge = await preview(await validate(changed, 'others.csv'), { mode: 'merge' });
      expect(merge.mode).to.equal('merge');
      const mergeJob = await waitForJob((await (await run(merge.planId)).json()).jobId);
      expect(mergeJob.results.rows).to.include({ imported: 4, updated: 4 });
      const [mergeAudit] = await auditFor(merge.planId);
      expect(mergeAudit).to.include({ mode: 'merge', outcome: 'success' });
      expect(mergeAudit!.summary).to.deep.equal({ created: 0, updated: 4, deleted: 0, skipped: 0, failed: 0 });
      expect(await total('others')).to.equal(4);
      const list = await dataOf(await as(t, 'admin').get('/api/collections/others?limit=10'));
      expect(list.items.every((e: any) => / \(edited\)$/.test(e.title))).to.equal(true);
      // A mode the importers do not have is refused by the route.
      const bad = await as(t, 'admin').post('/api/importers/preview', { format: 'csv', mode: 'mirror' });
      expect(bad.status).to.equal(400);
    });

    it("the importer's lock: a held lock is 409 LOCK_CONTENTION and the plan can run later; runs at once never import twice", async () => {
      const lock = t.kernel.container.resolve<DbLock>('lock');
      const held = await lock.acquire('data-ops:importer:default', { ttlMs: 30000, waitMs: 1000 });
      const plan = await preview(await validate(csv(6, { prefix: 'lk' }), 'items.csv'));
      const before = await total('items');
      let released = false;
      try {
        const res = await run(plan.planId);
        expect(res.status).to.equal(409);
        expect((await res.json()).error).to.equal('LOCK_CONTENTION');
        expect(await total('items')).to.equal(before);
      } finally {
        await held();
        released = true;
      }
      expect(released).to.equal(true);
      // The refused run gave the plan back: it runs now.
      const ok = await run(plan.planId);
      expect(ok.status).to.equal(200);
      expect(await total('items')).to.equal(before + 6);

      // The same plan twice at once: one run, one 409; two plans of one tenant at once: serialised by the lock.
      const p1 = await preview(await validate(csv(8, { prefix: 'c1' }), 'items.csv'));
      const p2 = await preview(await validate(csv(7, { prefix: 'c2' }), 'others.csv'));
      const othersBefore = await total('others');
      const itemsBefore = await total('items');
      const answers = await Promise.all([run(p1.planId), run(p1.planId), run(p2.planId)]);
      const statuses = answers.map((r) => r.status);
      const errors = await Promise.all(answers.map(async (r) => (r.status === 200 ? null : (await r.json()).error)));
      expect(statuses.filter((s) => s === 200).length, JSON.stringify(errors)).to.be.within(2, 2);
      expect(errors.filter(Boolean)).to.deep.equal(['IMPORT_ALREADY_RUN']);
      expect(await total('items')).to.equal(itemsBefore + 8);
      expect(await total('others')).to.equal(othersBefore + 7);
      expect(await auditFor(p1.planId)).to.have.length(1);
      expect(await auditFor(p2.planId)).to.have.length(1);
    });

    it('POST /api/migration/import runs through the engine too: an audit entry and a completion event', async () => {
      const stream = await openSse(`${t.url}/api/data-ops/events?domain=importer`, { 'x-test-identity': 'admin' });
      try {
        const fd = new FormData();
        fd.append('file', new Blob([csv(120, { prefix: 'st' })]), 'streamed.csv');
        fd.append('scaffold', 'true');
        const res = await t.request('/api/migration/import', { method: 'POST', body: fd, identity: 'admin' });
        const text = await res.text();
        const complete = /event: complete\ndata: (.*)/.exec(text);
        expect(complete, text).to.not.equal(null);
        expect(JSON.parse(complete![1]!)).to.include({ imported: 120, failed: 0 });
        // Inline whatever the size: the event has no engine job.
        const event = await stream.next((e) => e.event === 'completed' && e.data.summary.created === 120 && e.data.jobId === null);
        expect(event.data).to.include({ domain: 'importer', outcome: 'success' });
        const [entry] = await auditFor(event.data.planId);
        expect(entry).to.include({ domain: 'importer', operation: 'apply', outcome: 'success' });
        expect(await total('streamed')).to.equal(120);
      } finally {
        stream.close();
      }
    });

    it('a run that fails as a whole removes the entries it created: outcome rollback in the audit entry and the completion event', async () => {
      const stream = await openSse(`${t.url}/api/data-ops/events?domain=importer`, { 'x-test-identity': 'admin' });
      // The importers' content SDK (resolved when used) is replaced for this test only.
      const deps = (t.kernel.container.resolve<any>('importers') as { deps: { contentClient: () => (identity?: unknown) => any } }).deps;
      const originalSdk = deps.contentClient;
      const original = originalSdk();
      let calls = 0;
      // The third batch into 'boom' fails as a whole (the ledger lookup throws), after two batches were written.
      const failing = (identity?: unknown) =>
        new Proxy(original(identity), {
          get(target, prop) {
            if (prop !== 'entries') return Reflect.get(target, prop);
            return (name: string) =>
              new Proxy(target.entries(name), {
                get(entries, key) {
                  if (key === 'existing' && name === 'boom')
                    return async (ids: string[]) => {
                      if (++calls > 2) throw new Error('the disk is on fire');
                      return entries.existing(ids);
                    };
                  return Reflect.get(entries, key);
                },
              });
          },
        });
      deps.contentClient = () => failing;
      try {
        const plan = await preview(await validate(csv(60, { prefix: 'bm' }), 'boom.csv'));
        const body = await (await run(plan.planId)).json();
        const job = await waitForJob(body.jobId);
        expect(job.status).to.equal('failed');
        expect(job.error).to.match(/the 40 entries this run created in 'boom' were removed again/);
        expect(await total('boom')).to.equal(0);
        const event = await stream.next((e) => e.event === 'completed' && e.data.planId === plan.planId);
        expect(event.data).to.include({ domain: 'importer', outcome: 'rollback' });
        expect(event.data.summary).to.deep.equal({ created: 0, updated: 0, deleted: 0, skipped: 0, failed: 60 });
        const [entry] = await auditFor(plan.planId);
        expect(entry).to.include({ domain: 'importer', operation: 'apply', outcome: 'rollback' });
      } finally {
        deps.contentClient = originalSdk;
        stream.close();
      }
      // The ledger forgot the removed entries: the same file imports all 60 now.
      const again = await preview(await validate(csv(60, { prefix: 'bm' }), 'boom.csv'));
      const job = await waitForJob((await (await run(again.planId)).json()).jobId);
      expect(job.results.rows).to.include({ imported: 60, skipped: 0 });
      expect(await total('boom')).to.equal(60);
    });
  });
}
