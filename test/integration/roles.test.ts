import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { responseCookie, type TestKernel, type TestResponse, useTestKernel, useTwoInstances } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38: roles administration (/api/roles), rules checked when saved (their effect: role-rules.test.ts), explain,
 * and narrowed website tokens; per tenant, audited, and applied to sessions and tokens at once, on one
 * instance and across two sharing MariaDB and Redis.
 */
const PASSWORD = 'correct horse battery';
const ACME = { 'x-forwarded-host': 'acme.test' };
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' as const } } } };

interface Role {
  _id: string;
  name: string;
  description: string;
  builtIn: boolean;
  permissions: string[];
  rules: unknown[];
}

function client(t: TestKernel) {
  let n = 0;
  const call = (method: string, path: string, cookie: string | null, json?: unknown, headers: Record<string, string> = {}) =>
    t.request(path, { method, headers: { ...(cookie ? { cookie } : {}), ...headers }, ...(json === undefined ? {} : { json }) });
  async function signIn(role: string, opts: { tenantId?: string; headers?: Record<string, string>; email?: string } = {}) {
    const email = opts.email ?? `roles-${role}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { _id } = await t.kernel.container
      .resolve<{ create(i: object): Promise<{ _id: string }> }>('users')
      .create({ email, password: PASSWORD, role, ...(opts.tenantId ? { tenantId: opts.tenantId } : {}) });
    const res = await call('POST', '/api/user/login', null, { email, password: PASSWORD }, opts.headers);
    expect(res.status, `sign-in as ${role}`).to.equal(200);
    return { id: _id, email, cookie: responseCookie(res)! };
  }
  const body = async (res: TestResponse) => (await res.json()) as { success: boolean; data: any; error?: string; message?: string };
  return { call, signIn, body };
}

for (const variant of DB_VARIANTS) {
  describe(`roles administration, rules checked, explain, narrowed tokens (${variant.name})`, function () {
    this.timeout(90000);
    const t = useTestKernel({ db: variant.name, config: { ...CONFIG, multiTenant: true, http: { trustProxy: true } } }, { variant });
    const { call, signIn, body } = client(t);
    let admin: { id: string; cookie: string };

    before(async function () {
      admin = await signIn('admin');
    });

    async function roles(cookie = admin.cookie, headers: Record<string, string> = {}): Promise<Role[]> {
      const res = await call('GET', '/api/roles', cookie, undefined, headers);
      expect(res.status).to.equal(200);
      return (await body(res)).data;
    }
    const byName = async (name: string) => (await roles()).find((r) => r.name === name)!;
    async function auditEntries(action: string): Promise<Array<{ target: any; details: any }>> {
      await t.kernel.container.resolve<{ flush(): Promise<void> }>('audit').flush();
      const rows = await t.kernel.sequelize.query<{ action: string; details: string | null }>(
        'SELECT action, details FROM cms_audit_log WHERE action = ? ORDER BY id',
        { replacements: [action], type: QueryTypes.SELECT },
      );
      return rows.map((r) => {
        const details = r.details ? JSON.parse(r.details) : {};
        return { target: details.target, details };
      });
    }

    it('lists the built-in roles with ids, builtIn and empty rules; needs user:manage', async function () {
      const list = await roles();
      expect(list.slice(0, 4).map((r) => r.name)).to.deep.equal(['admin', 'editor', 'viewer', 'guest']);
      for (const r of list.slice(0, 4)) {
        expect(r).to.include({ builtIn: true });
        expect(r._id).to.be.a('string').with.length.above(0);
        expect(r.rules).to.deep.equal([]);
      }
      expect((await byName('viewer')).permissions).to.deep.equal(['content:read', 'media:read', 'dashboard:read']);
      const editor = await signIn('editor');
      expect((await call('GET', '/api/roles', editor.cookie)).status).to.equal(403);
      expect((await call('GET', '/api/roles', null)).status).to.equal(401);
    });

    it('creates, renames and deletes a custom role; each change audited; taken names and built-in roles are 409', async function () {
      const created = await call('POST', '/api/roles', admin.cookie, {
        name: 'reviewer',
        description: 'Reads and comments',
        permissions: ['content:read', 'content:read', 'media:read'],
      });
      expect(created.status).to.equal(201);
      const role: Role = (await body(created)).data;
      expect(role).to.deep.include({ name: 'reviewer', description: 'Reads and comments', builtIn: false, rules: [] });
      expect(role.permissions).to.deep.equal(['content:read', 'media:read']);
      expect((await call('POST', '/api/roles', admin.cookie, { name: 'reviewer' })).status, 'name taken').to.equal(409);
      expect((await call('POST', '/api/roles', admin.cookie, { name: 'editor' })).status, 'built-in name taken').to.equal(409);
      expect((await call('POST', '/api/roles', admin.cookie, { name: 'api-key' })).status, 'reserved').to.equal(400);

      // A holder of the role: renaming renames their role too.
      const holder = await signIn('reviewer');
      const renamed = await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { name: 'proofreader' });
      expect(renamed.status).to.equal(200);
      expect((await body(renamed)).data).to.include({ _id: role._id, name: 'proofreader' });
      const me = await body(await call('GET', '/api/user/me', holder.cookie));
      expect(me.data.role).to.equal('proofreader');

      // Held: 409 with words; after the holder gets another role it goes.
      const held = await call('DELETE', `/api/roles/${role._id}`, admin.cookie);
      expect(held.status).to.equal(409);
      const heldBody = await body(held);
      expect(heldBody.error).to.equal('CONFLICT');
      expect(heldBody.message).to.match(/still held by 1 user/);
      expect((await call('PUT', `/api/user/${holder.id}/role`, admin.cookie, { role: 'viewer' })).status).to.equal(200);
      expect((await call('DELETE', `/api/roles/${role._id}`, admin.cookie)).status).to.equal(200);
      expect((await roles()).map((r) => r.name)).to.not.include('proofreader');
      expect((await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { description: 'x' })).status).to.equal(404);

      // Built-in roles: not deleted, not renamed; admin's permissions not edited; descriptions may change.
      const editor = await byName('editor');
      const del = await call('DELETE', `/api/roles/${editor._id}`, admin.cookie);
      expect(del.status).to.equal(409);
      expect((await body(del)).message).to.match(/built-in/);
      expect((await call('PATCH', `/api/roles/${editor._id}`, admin.cookie, { name: 'writer' })).status).to.equal(409);
      const adminRole = await byName('admin');
      expect((await call('PATCH', `/api/roles/${adminRole._id}`, admin.cookie, { permissions: ['content:read'] })).status).to.equal(409);
      expect((await call('PATCH', `/api/roles/${editor._id}`, admin.cookie, { description: 'Writes the magazine' })).status).to.equal(200);
      expect((await byName('editor')).description).to.equal('Writes the magazine');

      const createdAudit = (await auditEntries('auth.role.created')).find((e) => e.target?.id === role._id);
      expect(createdAudit?.details.permissions).to.deep.equal(['content:read', 'media:read']);
      const updatedAudit = (await auditEntries('auth.role.updated')).find((e) => e.target?.id === role._id);
      expect(updatedAudit?.details.to.name).to.equal('proofreader');
      expect((await auditEntries('auth.role.deleted')).some((e) => e.target?.id === role._id)).to.equal(true);
    });

    it('unknown permissions, malformed bodies and rules naming what does not exist are 400; nothing is stored', async function () {
      const unknown = await call('POST', '/api/roles', admin.cookie, { name: 'typo', permissions: ['content:raed'] });
      expect(unknown.status).to.equal(400);
      expect(await body(unknown)).to.include({ error: 'VALIDATION_ERROR' });
      expect((await call('POST', '/api/roles', admin.cookie, { name: '' })).status).to.equal(400);
      expect((await call('POST', '/api/roles', admin.cookie, { name: 'x', permissions: 'content:read' })).status).to.equal(400);
      // A rule of the right shape for a collection that does not exist: refused, naming the rule's part.
      const withRule = await call('POST', '/api/roles', admin.cookie, {
        name: 'own-posts',
        permissions: ['content:read'],
        rules: [{ action: 'update', collection: 'nosuchposts', where: { createdBy: '$user' }, fields: ['title'] }],
      });
      expect(withRule.status).to.equal(400);
      const refused = await body(withRule);
      expect(refused.error).to.equal('VALIDATION_ERROR');
      expect(refused.message).to.match(/body\.rules\.0\.collection: no collection 'nosuchposts'/);
      // A malformed rule: a shape error.
      const bad = await call('POST', '/api/roles', admin.cookie, { name: 'bad', rules: [{ action: 'fly', collection: 'posts' }] });
      expect(bad.status).to.equal(400);
      // Nothing was stored; an empty list is fine.
      expect((await roles()).map((r) => r.name)).to.not.include.members(['own-posts', 'bad', 'typo']);
      const empty = await call('POST', '/api/roles', admin.cookie, { name: 'no-rules', permissions: [], rules: [] });
      expect(empty.status).to.equal(201);
      const patchRules = await call('PATCH', `/api/roles/${(await body(empty)).data._id}`, admin.cookie, {
        rules: [{ action: 'read', collection: '*', locales: ['xx-nope'] }],
      });
      expect(patchRules.status).to.equal(400);
      expect((await body(patchRules)).message).to.match(/body\.rules\.0\.locales: no locale 'xx-nope'/);
      // The admin role takes no rules.
      const adminRole = (await roles()).find((r) => r.name === 'admin')!;
      const onAdmin = await call('PATCH', `/api/roles/${adminRole._id}`, admin.cookie, { rules: [{ action: 'read', collection: '*' }] });
      expect(onAdmin.status).to.equal(400);
    });

    it('nobody grants permissions they do not hold; only admins touch the admin role', async function () {
      const manager = await signIn('editor');
      // Give the editor user:manage through a custom role it holds.
      const managers = (
        await body(
          await call('POST', '/api/roles', admin.cookie, {
            name: 'user-managers',
            permissions: ['user:manage', 'content:read', 'media:read'],
          }),
        )
      ).data as Role;
      expect((await call('PUT', `/api/user/${manager.id}/role`, admin.cookie, { role: 'user-managers' })).status).to.equal(200);
      const beyond = await call('POST', '/api/roles', manager.cookie, { name: 'writers', permissions: ['content:write'] });
      expect(beyond.status).to.equal(403);
      const within = await call('POST', '/api/roles', manager.cookie, {
        name: 'readers',
        permissions: ['content:read', 'content:read:posts'],
      });
      expect(within.status).to.equal(201);
      const editor = await byName('editor');
      expect(
        (await call('PATCH', `/api/roles/${editor._id}`, manager.cookie, { permissions: ['content:read'] })).status,
        'editor has more',
      ).to.equal(403);
      const adminRole = await byName('admin');
      expect((await call('PATCH', `/api/roles/${adminRole._id}`, manager.cookie, { description: 'x' })).status).to.equal(403);
      expect(managers.permissions).to.include('user:manage');
    });

    it("another tenant's admin neither sees nor changes this tenant's roles", async function () {
      const made = await call('POST', '/api/tenants', admin.cookie, {
        id: 'acme',
        name: 'Acme',
        hostnames: ['acme.test'],
        admin: { email: 'boss@acme.test', password: 'acme admin password' },
      });
      expect(made.status).to.equal(201);
      const login = await call('POST', '/api/user/login', null, { email: 'boss@acme.test', password: 'acme admin password' }, ACME);
      const boss = responseCookie(login)!;
      const mine = (await body(await call('POST', '/api/roles', admin.cookie, { name: 'default-only', permissions: ['content:read'] })))
        .data as Role;
      const theirs = await roles(boss, ACME);
      expect(theirs.map((r) => r.name)).to.deep.equal(['admin', 'editor', 'viewer', 'guest']);
      expect(theirs.map((r) => r._id)).to.not.include(mine._id);
      expect((await call('GET', `/api/roles/${mine._id}`, boss, undefined, ACME)).status).to.equal(404);
      expect((await call('PATCH', `/api/roles/${mine._id}`, boss, { permissions: [] }, ACME)).status).to.equal(404);
      expect((await call('DELETE', `/api/roles/${mine._id}`, boss, undefined, ACME)).status).to.equal(404);
      expect((await call('GET', `/api/roles/${mine._id}/explain?collection=posts&action=read`, boss, undefined, ACME)).status).to.equal(
        404,
      );
      // Their own role of the same name is theirs.
      expect((await call('POST', '/api/roles', boss, { name: 'default-only' }, ACME)).status).to.equal(201);
      expect((await byName('default-only')).permissions).to.deep.equal(['content:read']);
    });

    it("a change applies to its holders' sessions at once (no sign-in again)", async function () {
      const role = (await body(await call('POST', '/api/roles', admin.cookie, { name: 'auditors', permissions: ['content:read'] })))
        .data as Role;
      const holder = await signIn('auditors');
      expect((await call('GET', '/api/user/list', holder.cookie)).status).to.equal(403);
      expect(
        (await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { permissions: ['content:read', 'user:manage'] })).status,
      ).to.equal(200);
      expect((await call('GET', '/api/user/list', holder.cookie)).status, 'granted at once').to.equal(200);
      expect((await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { permissions: ['content:read'] })).status).to.equal(200);
      expect((await call('GET', '/api/user/list', holder.cookie)).status, 'withdrawn at once').to.equal(403);
    });

    it('explain names the permission that decides each action, as the content routes check it', async function () {
      const ask = async (role: Role, collection: string, action: string) => {
        const res = await call('GET', `/api/roles/${role._id}/explain?collection=${collection}&action=${action}`, admin.cookie);
        expect(res.status).to.equal(200);
        return (await body(res)).data;
      };
      const viewer = await byName('viewer');
      expect(await ask(viewer, 'posts', 'read')).to.deep.include({
        allowed: true,
        permission: 'content:read',
        grantedBy: 'content:read',
        publishedOnly: true,
      });
      const update = await ask(viewer, 'posts', 'update');
      expect(update).to.deep.include({ allowed: false, permission: 'content:write', grantedBy: null });
      expect(update.reason).to.match(/content:write/);
      expect(await ask(viewer, 'posts', 'publish')).to.deep.include({ allowed: false, permission: 'content:write' });
      const editor = await byName('editor');
      expect(await ask(editor, 'posts', 'delete')).to.deep.include({ allowed: true, grantedBy: 'content:write' });
      expect(await ask(editor, 'posts', 'read')).to.deep.include({ allowed: true, publishedOnly: false });
      expect(await ask(await byName('admin'), 'posts', 'publish')).to.deep.include({ allowed: true });
      const scoped = (
        await body(await call('POST', '/api/roles', admin.cookie, { name: 'posts-readers', permissions: ['content:read:posts'] }))
      ).data as Role;
      expect(await ask(scoped, 'posts', 'read')).to.deep.include({ allowed: true, grantedBy: 'content:read:posts', publishedOnly: true });
      expect(await ask(scoped, 'pages', 'read')).to.deep.include({ allowed: false });
      expect((await call('GET', `/api/roles/${scoped._id}/explain?collection=posts&action=fly`, admin.cookie)).status).to.equal(400);
      expect((await call('GET', `/api/roles/${scoped._id}/explain?action=read`, admin.cookie)).status).to.equal(400);
    });

    it('explain says when publishing needs a review stage, and whether the role may move entries into it', async function () {
      const ok = async (res: TestResponse, status = 200) => {
        const b = await body(res);
        expect(res.status, JSON.stringify(b)).to.equal(status);
        return b.data;
      };
      await ok(await call('POST', '/api/collections', admin.cookie, { name: 'stories', fields: [{ name: 'title', type: 'text' }] }), 201);
      const editor = await byName('editor');
      const ask = async (role: Role, action: string) =>
        ok(await call('GET', `/api/roles/${role._id}/explain?collection=stories&action=${action}`, admin.cookie));
      expect((await ask(editor, 'publish')).notes).to.deep.equal([]);
      const stages = [{ name: 'draft' }, { name: 'approved', roles: ['admin', 'viewer'] }];
      const flow = await ok(
        await call('POST', '/api/workflows', admin.cookie, { name: 'Desk', collections: ['stories'], stages, publishStage: 'approved' }),
        201,
      );
      const explained = await ask(editor, 'publish');
      expect(explained.allowed).to.equal(true);
      expect(explained.notes).to.have.length(1);
      expect(explained.notes[0]).to.contain("review stage 'approved' of the workflow 'Desk'").and.contain('this role may not');
      expect(explained.reason).to.contain('WORKFLOW_STAGE_REQUIRED');
      // What explain says is what publishing does for an editor: refused outside the stage.
      const holder = await signIn('editor');
      const story = await ok(await call('POST', '/api/collections/stories', holder.cookie, { title: 'x' }), 201);
      const refused = await call('PATCH', `/api/collections/stories/${story._id}/status`, holder.cookie, { status: 'published' });
      expect(refused.status).to.equal(409);
      expect((await ask(await byName('admin'), 'publish')).notes[0]).to.contain('this role may.');
      expect((await ask(editor, 'update')).notes).to.deep.equal([]);
      await ok(await call('DELETE', `/api/workflows/${flow._id}`, admin.cookie));
    });

    it('a rule whose where names a field removed since matches no entry, and explain says why', async function () {
      const ok = async (res: TestResponse, status = 200) => {
        const b = await body(res);
        expect(res.status, JSON.stringify(b)).to.equal(status);
        return b.data;
      };
      const fields = [
        { name: 'title', type: 'text' },
        { name: 'tag', type: 'text' },
      ];
      await ok(await call('POST', '/api/collections', admin.cookie, { name: 'memos', fields }), 201);
      await ok(await call('POST', '/api/collections/memos', admin.cookie, { title: 'a', tag: 'x', status: 'published' }), 201);
      const rules = [{ action: 'read', collection: 'memos', where: { tag: 'x' } }];
      const role = await ok(
        await call('POST', '/api/roles', admin.cookie, { name: 'memo-readers', permissions: ['content:read'], rules }),
        201,
      );
      const holder = await signIn('memo-readers');
      expect((await ok(await call('GET', '/api/collections/memos', holder.cookie))).total).to.equal(1);
      const plan = await ok(await call('POST', '/api/collections/memos/schema/plan', admin.cookie, { fields: [fields[0]] }));
      await ok(await call('PATCH', '/api/collections/memos/schema', admin.cookie, { fields: [fields[0]], planHash: plan.planHash }));
      // The rule fails closed: no entry, not an error on every list.
      expect((await ok(await call('GET', '/api/collections/memos', holder.cookie))).total).to.equal(0);
      const explained = await ok(await call('GET', `/api/roles/${role._id}/explain?collection=memos&action=read`, admin.cookie));
      expect(explained.notes).to.have.length(1);
      expect(explained.notes[0]).to.contain("the read rule on 'memos' (where)").and.contain('matches no entry');
    });

    it('the explain answer matches what the content routes do for a holder of the role', async function () {
      const made = await call('POST', '/api/collections', admin.cookie, { name: 'notes', fields: [{ name: 'title', type: 'text' }] });
      expect(made.status).to.equal(201);
      const role = (await body(await call('POST', '/api/roles', admin.cookie, { name: 'note-readers', permissions: ['content:read'] })))
        .data as Role;
      const holder = await signIn('note-readers');
      const explainWrite = (await body(await call('GET', `/api/roles/${role._id}/explain?collection=notes&action=create`, admin.cookie)))
        .data;
      const write = await call('POST', '/api/collections/notes', holder.cookie, { title: 'x' });
      expect(write.status === 201, 'create allowed').to.equal(explainWrite.allowed);
      expect(write.status).to.equal(403);
      const explainRead = (await body(await call('GET', `/api/roles/${role._id}/explain?collection=notes&action=read`, admin.cookie))).data;
      expect((await call('GET', '/api/collections/notes', holder.cookie)).status === 200).to.equal(explainRead.allowed);
    });

    it('a website token narrowed to content:read cannot write, even when its creator is an admin', async function () {
      const created = await call('POST', '/api/website-tokens', admin.cookie, { name: 'site', permissions: ['content:read'] });
      expect(created.status).to.equal(201);
      const token = (await body(created)).data;
      expect(token.permissions).to.deep.equal(['content:read']);
      const bearer = { authorization: `Bearer ${token.token}` };
      expect((await call('GET', '/api/collections/notes', null, undefined, bearer)).status).to.equal(200);
      expect((await call('POST', '/api/collections/notes', null, { title: 'by token' }, bearer)).status).to.equal(403);
      expect((await call('POST', '/api/roles', null, { name: 'by-token' }, bearer)).status).to.equal(403);
      // A token that inherits the admin's rights writes.
      const full = (await body(await call('POST', '/api/website-tokens', admin.cookie, { name: 'full' }))).data;
      expect(full.permissions).to.equal(null);
      expect(
        (await call('POST', '/api/collections/notes', null, { title: 'by full token' }, { authorization: `Bearer ${full.token}` })).status,
      ).to.equal(201);
      // A narrowed token of an editor: a permission the editor lacks is 400.
      const editor = await signIn('editor');
      const beyond = await call('POST', '/api/website-tokens', editor.cookie, { name: 'x', permissions: ['user:manage'] });
      expect(beyond.status).to.equal(400);
      expect(await body(beyond)).to.include({ error: 'VALIDATION_ERROR' });
    });

    it('a role change reaches the website tokens of its holders at once', async function () {
      const role = (
        await body(await call('POST', '/api/roles', admin.cookie, { name: 'token-holders', permissions: ['content:read', 'user:manage'] }))
      ).data as Role;
      const holder = await signIn('token-holders');
      const token = (await body(await call('POST', '/api/website-tokens', holder.cookie, { name: 'inherits' }))).data.token as string;
      const bearer = { authorization: `Bearer ${token}` };
      expect((await call('GET', '/api/user/list', null, undefined, bearer)).status).to.equal(200);
      expect((await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { permissions: ['content:read'] })).status).to.equal(200);
      expect((await call('GET', '/api/user/list', null, undefined, bearer)).status).to.equal(403);
    });
  });
}

describe('role changes across two instances (MariaDB + Redis)', function () {
  this.timeout(90000);
  const [a, b] = useTwoInstances({ config: CONFIG }, 'rolesshared');

  /** Polls until `check` holds (bounded): the event travels through Redis to the other instance. */
  async function eventually(check: () => Promise<boolean>, tries = 200): Promise<boolean> {
    for (let i = 0; i < tries; i++) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  it("a role changed on A applies on B to its holders' sessions and tokens", async function () {
    const ca = client(a);
    const cb = client(b);
    const admin = await ca.signIn('admin');
    const role = (
      await ca.body(await ca.call('POST', '/api/roles', admin.cookie, { name: 'shared', permissions: ['content:read', 'user:manage'] }))
    ).data as Role;
    const holder = await ca.signIn('shared');
    const token = (await ca.body(await ca.call('POST', '/api/website-tokens', holder.cookie, { name: 't' }))).data.token as string;
    const bearer = { authorization: `Bearer ${token}` };
    // B has them cached (twice: the second answer from B's memory).
    for (let i = 0; i < 2; i++) {
      expect((await cb.call('GET', '/api/user/list', holder.cookie)).status).to.equal(200);
      expect((await cb.call('GET', '/api/user/list', null, undefined, bearer)).status).to.equal(200);
    }
    expect((await ca.call('PATCH', `/api/roles/${role._id}`, admin.cookie, { permissions: ['content:read'] })).status).to.equal(200);
    expect(await eventually(async () => (await cb.call('GET', '/api/user/list', holder.cookie)).status === 403), 'session on B').to.equal(
      true,
    );
    expect(
      await eventually(async () => (await cb.call('GET', '/api/user/list', null, undefined, bearer)).status === 403),
      'token on B',
    ).to.equal(true);
  });

  it('a rule changed on A applies on B, to sessions and tokens B had read with the old rules', async function () {
    const ca = client(a);
    const cb = client(b);
    const admin = await ca.signIn('admin');
    await ca.call('POST', '/api/collections', admin.cookie, {
      name: 'notes',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'secret', type: 'text' },
      ],
    });
    expect(
      (await ca.call('POST', '/api/collections/notes', admin.cookie, { title: 'n', secret: 's', status: 'published' })).status,
    ).to.equal(201);
    const role = (await ca.body(await ca.call('POST', '/api/roles', admin.cookie, { name: 'ruled', permissions: ['content:read'] })))
      .data as Role;
    const holder = await ca.signIn('ruled');
    const token = (await ca.body(await ca.call('POST', '/api/website-tokens', holder.cookie, { name: 't' }))).data.token as string;
    const bearer = { authorization: `Bearer ${token}` };
    const firstOnB = async (headers: Record<string, string>, cookie: string | null) =>
      (await cb.body(await cb.call('GET', '/api/collections/notes', cookie, undefined, headers))).data.items[0];
    // B read both with no rules: the secret shows.
    expect((await firstOnB({}, holder.cookie)).secret).to.equal('s');
    expect((await firstOnB(bearer, null)).secret).to.equal('s');
    const changed = await ca.call('PATCH', `/api/roles/${role._id}`, admin.cookie, {
      rules: [{ action: 'read', collection: 'notes', fields: ['title'] }],
    });
    expect(changed.status).to.equal(200);
    expect(await eventually(async () => !('secret' in (await firstOnB({}, holder.cookie)))), 'session on B').to.equal(true);
    expect(await eventually(async () => !('secret' in (await firstOnB(bearer, null)))), 'token on B').to.equal(true);
  });
});
