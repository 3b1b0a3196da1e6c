import { expect } from 'chai';
import { AUTHOR_RULES, authorClient, type Caller } from '../helpers/author-role.js';
import { startTestKernel, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38: the rules of roles travel with their roles. Configuration promotion carries them from one
 * instance to another (the plan names the rules and permissions each role operation adds and removes), the
 * promoted rules apply at once to signed-in holders, and a backup and restore keeps them.
 */
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' as const } } } };
const PUBLISHED_ONLY = { action: 'read', collection: 'posts', fields: ['title', 'body'], where: { status: 'published' } };

for (const variant of DB_VARIANTS) {
  describe(`rules of roles in configuration promotion and backups (${variant.name})`, function () {
    this.timeout(120000);
    const a = useTestKernel({ db: variant.name, config: CONFIG }, { variant });
    let b: TestKernel;
    let onA: ReturnType<typeof authorClient>, onB: ReturnType<typeof authorClient>;
    let adminA: Caller, adminB: Caller, ann: Caller, bob: Caller;
    const postIds: Record<string, string> = {};

    before(async function () {
      onA = authorClient(a);
      ({ admin: adminA } = await onA.setUp());
      b = await startTestKernel({ db: variant.name, config: CONFIG });
      onB = authorClient(b);
      adminB = await onB.signIn('admin');
    });
    after(async () => b?.close());

    const bundleOfA = async () => (await onA.call('GET', '/api/config/bundle', adminA)).text();
    async function upload(bundle: string): Promise<any> {
      const form = new FormData();
      form.append('file', new Blob([bundle], { type: 'application/json' }), 'config-bundle.json');
      return onB.data(await b.request('/api/config/bundle', { method: 'POST', headers: { cookie: adminB.cookie }, body: form }));
    }
    /** A's configuration as a bundle, uploaded to B and planned there (merge); the plan. */
    async function planOnB(): Promise<any> {
      const up = await upload(await bundleOfA());
      expect(up.valid, JSON.stringify(up.problems)).to.equal(true);
      const plan = await onB.data(await onB.call('POST', '/api/config/plan', adminB, { uploadId: up.uploadId, mode: 'merge' }));
      expect(plan.blockedReasons).to.deep.equal([]);
      return plan;
    }
    const apply = async (plan: any) =>
      expect(
        (
          await onB.data(
            await onB.call('POST', '/api/config/apply', adminB, { planId: plan.planId, planHash: plan.planHash, confirmed: true }),
          )
        ).outcome,
      ).to.equal('success');
    const roleOnB = async () => (await onB.data(await onB.call('GET', '/api/roles', adminB))).find((r: any) => r.name === 'author');
    const annSees = async () =>
      (await onB.data(await onB.call('GET', '/api/collections/posts?limit=50', ann))).items.map((e: any) => e.title).sort();

    it('promotes a role with its rules; the plan shows the rules and permissions the role gains', async function () {
      // A file edited by hand (checksum removed) whose rule has an unknown action is a problem of the upload.
      const edited = JSON.parse(await bundleOfA());
      const file = edited.files.find((f: any) => f.type === 'role' && f.name === 'author');
      Object.assign(file, { checksum: null, data: { ...file.data, rules: [{ action: 'fly', collection: 'posts' }] } });
      const bad = await upload(JSON.stringify(edited));
      expect(bad.valid).to.equal(false);
      expect(JSON.stringify(bad.problems)).to.contain('data.rules.0.action');
      const plan = await planOnB();
      const op = plan.operations.find((o: any) => o.type === 'role' && o.target === 'author');
      expect(op).to.include({ action: 'create' });
      expect(op.changes.rules).to.deep.equal({ added: AUTHOR_RULES, removed: [] });
      expect(op.changes.permissions).to.deep.equal({ added: ['content:read', 'content:write', 'dashboard:read'], removed: [] });
      // Roles whose files carry no rules show no rule change.
      const others = plan.operations.filter((o: any) => o.type === 'role' && o.target !== 'author' && o.changes);
      for (const o of others) expect(o.changes.rules, o.target).to.deep.equal({ added: [], removed: [] });
      await apply(plan);
      expect((await roleOnB()).rules).to.deep.equal(AUTHOR_RULES);
      // The promoted rules hold on B: an author reads published posts and her own drafts only.
      ann = await onB.signIn('author');
      bob = await onB.signIn('author');
      postIds.annDraft = await onB.post(ann, adminB, 'ann-draft', 'draft', 'n');
      postIds.bobDraft = await onB.post(bob, adminB, 'bob-draft', 'draft', 'n');
      postIds.published = await onB.post(adminB, adminB, 'published', 'published', 'secret');
      expect(await annSees()).to.deep.equal(['ann-draft', 'published']);
    });

    it("a promoted rule naming a field the target's collection lacks stops the apply, and nothing changes", async function () {
      const edited = JSON.parse(await bundleOfA());
      const file = edited.files.find((f: any) => f.type === 'role' && f.name === 'author');
      const ghost = { action: 'read', collection: 'posts', fields: ['title', 'ghost'] };
      Object.assign(file, { checksum: null, data: { ...file.data, rules: [ghost] } });
      const up = await upload(JSON.stringify(edited));
      // Its shape is right: the upload is valid and the plan shows the change.
      expect(up.valid, JSON.stringify(up.problems)).to.equal(true);
      const plan = await onB.data(await onB.call('POST', '/api/config/plan', adminB, { uploadId: up.uploadId, mode: 'merge' }));
      const op = plan.operations.find((o: any) => o.type === 'role' && o.target === 'author');
      expect(op.changes.rules.added).to.deep.equal([ghost]);
      const res = await onB.call('POST', '/api/config/apply', adminB, { planId: plan.planId, planHash: plan.planHash, confirmed: true });
      const done = await onB.data(res);
      expect(done.outcome).to.equal('rollback');
      expect(done.error.code).to.equal('VALIDATION_ERROR');
      expect(done.error.message).to.contain("data.rules.0.fields: 'posts' has no field 'ghost'");
      expect((await roleOnB()).rules).to.deep.equal(AUTHOR_RULES);
      expect(await annSees()).to.deep.equal(['ann-draft', 'published']);
    });

    it('a changed rule promoted again: the plan shows the rules added and removed; holders signed in on B follow at once', async function () {
      const role = (await onA.data(await onA.call('GET', '/api/roles', adminA))).find((r: any) => r.name === 'author');
      await onA.data(await onA.call('PATCH', `/api/roles/${role._id}`, adminA, { rules: [PUBLISHED_ONLY, AUTHOR_RULES[1]] }));
      const plan = await planOnB();
      const op = plan.operations.find((o: any) => o.type === 'role' && o.target === 'author');
      expect(op.action).to.equal('update');
      expect(op.changes.rules).to.deep.equal({ added: [PUBLISHED_ONLY], removed: [AUTHOR_RULES[0], AUTHOR_RULES[2], AUTHOR_RULES[3]] });
      expect(op.changes.permissions).to.deep.equal({ added: [], removed: [] });
      expect(await annSees()).to.deep.equal(['ann-draft', 'published']);
      await apply(plan);
      expect((await roleOnB()).rules).to.deep.equal([PUBLISHED_ONLY, AUTHOR_RULES[1]]);
      // Her session, signed in before, reads with the promoted rule on its next request.
      expect(await annSees()).to.deep.equal(['published']);
    });

    it('a backup keeps the rules; a restore puts them back and holders follow at once', async function () {
      const { backupId } = await onB.data(await onB.call('POST', '/api/backups/create', adminB, {}));
      const role = await roleOnB();
      await onB.data(await onB.call('PATCH', `/api/roles/${role._id}`, adminB, { rules: [] }));
      expect(await annSees()).to.deep.equal(['ann-draft', 'bob-draft', 'published']);
      const plan = await onB.data(await onB.call('POST', '/api/backups/restore-plan', adminB, { backupId }));
      expect(plan.blockedReasons).to.deep.equal([]);
      const done = await onB.data(
        await onB.call('POST', '/api/backups/restore', adminB, { planId: plan.planId, confirmed: true, planHash: plan.planHash }),
      );
      expect(done.outcome).to.equal('success');
      expect((await roleOnB()).rules).to.deep.equal([PUBLISHED_ONLY, AUTHOR_RULES[1]]);
      expect(await annSees()).to.deep.equal(['published']);
    });
  });
}
