/**
 * Issue 32, items 1, 9 (backup files) and 18: backups belong to the installation (a tenant's admin is
 * refused), their manifests are authenticated with the installation's key (a forged backup is refused
 * unless an installation administrator takes it as foreign), they are encrypted by default and
 * owner-only on disk, and a restore gives every value back bit for bit.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { asDefaultAdmin, startTwoTenantKernel, statusAndJson as json, T2_HOST } from '../helpers/two-tenants.js';

const DECIMALS = [0.1886462, 0.1, 1 / 3, 123456.789, 5e-324, 1.7976931348623157e308, 0.30000000000000004, -2.5e-8, 0.0001886462];
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;

for (const variant of DB_VARIANTS) {
  describe(`backups: installation-wide, authenticated, encrypted, exact (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    let t2Cookie = '';
    const asAdmin = (path: string, body?: unknown) => asDefaultAdmin(t, path, body);
    /** Tenant t2's admin, signed in on t2's hostname. */
    const asT2 = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      t.request(path, { ...init, headers: { ...T2_HOST, cookie: t2Cookie, ...(init.headers as Record<string, string>) } });
    const create = async (body: unknown = {}) => {
      const r = await json(await asAdmin('/api/backups/create', body));
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.data as { backupId: string; backup: Record<string, unknown> };
    };
    const folder = (backupId: string) => join(t.dataDir, 'backups', `${backupId}.svelty-backup`);
    const upload = (bytes: Buffer, query = '', as: 'admin' | 't2' = 'admin') => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'b.svelty-backup.tar.gz');
      return as === 'admin'
        ? t.request(`/api/backups/upload${query}`, { method: 'POST', body: form, identity: 'admin' })
        : asT2(`/api/backups/upload${query}`, { method: 'POST', body: form });
    };
    const rowsOf = async () => {
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      return (await sequelize.query('SELECT * FROM cms_c_items ORDER BY id', { type: 'SELECT' })) as Array<Record<string, unknown>>;
    };
    const restore = async (backupId: string, extra: Record<string, unknown> = {}) => {
      const plan = await json(await asAdmin('/api/backups/restore-plan', { backupId, ...extra }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data.blockedReasons).to.deep.equal([]);
      const done = await json(await asAdmin('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }));
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      return done.body.data;
    };

    before(async function () {
      requireVariant(this, variant);
      ({ t, t2Cookie } = await startTwoTenantKernel(variant.name));
      const col = await asAdmin('/api/collections', {
        name: 'items',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'v', type: 'number' },
        ],
      });
      expect(col.status, await col.text()).to.equal(201);
      for (const [i, v] of DECIMALS.entries())
        expect((await asAdmin('/api/collections/items', { title: `default secret ${i}`, v })).status).to.equal(201);
      const t2Entry = await asT2('/api/collections/items', { method: 'POST', json: { title: 't2 own entry', v: 2 } });
      expect(t2Entry.status, await t2Entry.text()).to.equal(201);
    });
    after(async () => t?.close());

    it("tenant t2's admin is refused every backup route (403 FORBIDDEN): it lists, downloads, creates, uploads and restores nothing", async () => {
      const { backupId } = await create();
      const before = await rowsOf();
      const plan = await json(await asAdmin('/api/backups/restore-plan', { backupId }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      const archive = Buffer.from(await (await asAdmin(`/api/backups/${backupId}/download`)).arrayBuffer());
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(archive)]), 'b.svelty-backup.tar.gz');
      const attempts: Array<[string, Promise<Response>]> = [
        ['GET /api/backups', asT2('/api/backups')],
        ['GET /api/backups/jobs', asT2('/api/backups/jobs')],
        ['GET download', asT2(`/api/backups/${backupId}/download`)],
        ['POST create', asT2('/api/backups/create', { method: 'POST', json: {} })],
        ['POST validate', asT2('/api/backups/validate', { method: 'POST', json: { backupId } })],
        ['POST restore-plan', asT2('/api/backups/restore-plan', { method: 'POST', json: { backupId } })],
        ['POST restore', asT2('/api/backups/restore', { method: 'POST', json: { planId: plan.body.data.planId, confirmed: true } })],
        ['POST upload', asT2('/api/backups/upload', { method: 'POST', body: form })],
        // The same through the test resolver: an admin identity of tenant t2.
        ['GET /api/backups (admin of t2)', t.request('/api/backups', { identity: 'admin', headers: { 'x-test-tenant': 't2' } })],
      ];
      for (const [label, pending] of attempts) {
        const r = await json(await pending);
        expect(r.status, `${label}: ${JSON.stringify(r.body)}`).to.equal(403);
        expect(r.body.error, label).to.equal('FORBIDDEN');
      }
      // Nothing was created, restored or rolled back: one backup listed, the default tenant's rows unchanged.
      const listed = (await json(await asAdmin('/api/backups'))).body.data.backups.map((b: any) => b.backupId);
      expect(listed).to.deep.equal([backupId]);
      expect(await rowsOf()).to.deep.equal(before);
      // The default tenant's admin still can.
      expect((await asAdmin(`/api/backups/${backupId}/download`)).status).to.equal(200);
    });

    it('a forged backup (config.json edited, SHA-256 checksums recomputed) is refused: validate, restore-plan, upload; foreign only by an installation admin', async () => {
      const { backupId } = await create({ encrypt: false });
      const dir = folder(backupId);
      // The attacker's edit: the guest role of the default tenant reads content and backups.
      const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      const guest = config.roles.find((r: any) => r.tenant_id === 'default' && r.name === 'guest');
      expect(guest, 'the backup holds the guest role').to.not.equal(undefined);
      guest.permissions = JSON.stringify(['content:read', 'backup:read']);
      const forged = Buffer.from(JSON.stringify(config));
      writeFileSync(join(dir, 'config.json'), forged);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      const entry = manifest.files.find((f: any) => f.path === 'config.json');
      entry.sha256 = sha256(forged);
      entry.size = forged.length;
      const sums = manifest.files.map((f: any) => `${f.sha256}  ${f.path}`).join('\n') + '\n';
      writeFileSync(join(dir, 'checksums.sha256'), sums);
      manifest.checksumsSha256 = sha256(sums);
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));

      const valid = await json(await asAdmin('/api/backups/validate', { backupId }));
      expect(valid.status).to.equal(200);
      expect(valid.body.data.valid).to.equal(false);
      expect(valid.body.data.problems.join(' ')).to.match(/MAC/);
      const plan = await json(await asAdmin('/api/backups/restore-plan', { backupId }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(400);
      expect(plan.body).to.include({ error: 'BACKUP_UNTRUSTED', mac: 'altered' });
      expect((await t.request('/api/backups')).status, 'guests still have no backups').to.equal(401);

      // The same forged folder as an upload: refused, nothing kept.
      const archive = Buffer.from(await (await asAdmin(`/api/backups/${backupId}/download`)).arrayBuffer());
      rmSync(dir, { recursive: true, force: true });
      const refused = await json(await upload(archive));
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body).to.include({ error: 'BACKUP_UNTRUSTED', mac: 'altered' });
      expect(existsSync(dir)).to.equal(false);
      expect((await json(await asAdmin('/api/backups'))).body.data.backups.map((b: any) => b.backupId)).to.not.include(backupId);
      // Taking it as foreign: a tenant's admin may not, an installation administrator may (audited).
      expect((await upload(archive, '?foreign=true', 't2')).status).to.equal(403);
      expect((await json(await asT2('/api/backups/restore-plan', { method: 'POST', json: { backupId, foreign: true } }))).status).to.equal(
        403,
      );
      const taken = await json(await upload(archive, '?foreign=true'));
      expect(taken.status, JSON.stringify(taken.body)).to.equal(201);
      expect(taken.body.data).to.deep.include({ importedAsForeign: true });
      expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).importedAsForeign).to.include({ by: 'user-admin' });
      expect((await json(await asAdmin('/api/backups/validate', { backupId }))).body.data).to.deep.equal({ valid: true, problems: [] });
      const audit = t.kernel.container.resolve<any>('audit');
      await audit.flush();
      const entries = (await audit.list({ limit: 20, search: 'backup.upload.foreign' })).items;
      expect(entries.map((e: any) => e.action)).to.include('backup.upload.foreign');
    });

    it('restore-plan takes a backup without a valid MAC only with foreign: true from an installation administrator', async () => {
      const { backupId } = await create();
      const file = join(folder(backupId), 'manifest.json');
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      delete manifest.mac; // as a backup of an older version
      writeFileSync(file, JSON.stringify(manifest, null, 2));
      const refused = await json(await asAdmin('/api/backups/restore-plan', { backupId }));
      expect(refused.status).to.equal(400);
      expect(refused.body).to.include({ error: 'BACKUP_UNTRUSTED', mac: 'missing' });
      const plan = await json(await asAdmin('/api/backups/restore-plan', { backupId, foreign: true }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data.blockedReasons).to.deep.equal([]);
    });

    it('a backup is encrypted by default with the installation key; folders 0700, files 0600, the key never in the backup', async () => {
      const before = await rowsOf();
      const { backupId, backup } = await create();
      expect(backup.encrypted).to.equal(true);
      const dir = folder(backupId);
      const content = readFileSync(join(dir, 'content', 'items.ndjson'));
      expect(content.toString('latin1')).to.not.include('default secret');
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.kdf.algorithm).to.equal('installation-key');
      const listed = (await json(await asAdmin('/api/backups'))).body.data.backups.find((b: any) => b.backupId === backupId);
      expect(listed.encrypted).to.equal(true);
      expect((await json(await asAdmin('/api/backups/validate', { backupId }))).body.data).to.deep.equal({ valid: true, problems: [] });
      // Owner-only on disk.
      expect(mode(join(t.dataDir, 'backups')), 'backups folder').to.equal(0o700);
      const walk = (p: string): void => {
        for (const d of readdirSync(p, { withFileTypes: true })) {
          const full = join(p, d.name);
          if (d.isDirectory()) {
            expect(mode(full), full).to.equal(0o700);
            walk(full);
          } else expect(mode(full), full).to.equal(0o600);
        }
      };
      expect(mode(dir)).to.equal(0o700);
      walk(dir);
      const keyFile = join(t.dataDir, 'private', 'backup-key.json');
      expect(mode(keyFile)).to.equal(0o600);
      expect(mode(join(t.dataDir, 'private'))).to.equal(0o700);
      const key = JSON.parse(readFileSync(keyFile, 'utf8')).BACKUP_KEY as string;
      expect(key).to.match(/^[0-9a-f]{64}$/);
      for (const f of readdirSync(dir, { recursive: true }) as string[])
        if (statSync(join(dir, f)).isFile()) expect(readFileSync(join(dir, f), 'latin1'), f).to.not.include(key);
      if (variant.name === 'sqlite') expect(mode(join(t.dataDir, 'cms.sqlite')), 'SQLite file').to.equal(0o600);
      // It restores here without a passphrase.
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      await sequelize.query("UPDATE cms_c_items SET f_title = 'changed'");
      const done = await restore(backupId);
      expect(done.outcome).to.equal('success');
      expect(await rowsOf()).to.deep.equal(before);
    });

    it('a restore gives every decimal back bit for bit (0.1886462 stays 0.1886462); verify finds no checksum difference', async () => {
      const before = await rowsOf();
      expect(before.map((r) => r.f_v)).to.include.members(DECIMALS);
      const { backupId } = await create();
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      await sequelize.query('DELETE FROM cms_c_items');
      const done = await restore(backupId);
      expect(done.outcome, JSON.stringify(done)).to.equal('success');
      expect(done.verify, JSON.stringify(done.verify)).to.deep.equal({ ok: true, discrepancies: [] });
      const after = await rowsOf();
      expect(after.map((r) => r.f_v)).to.deep.equal(before.map((r) => r.f_v));
      for (const [i, row] of after.entries()) expect(Object.is(row.f_v, before[i]!.f_v), `${String(row.f_v)}`).to.equal(true);
      expect(after).to.deep.equal(before);
    });
  });
}
