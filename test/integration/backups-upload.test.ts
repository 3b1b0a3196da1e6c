import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { MARIADB_URL } from '../helpers/services.js';
import { tarEntry, tarGz } from '../helpers/content-package.js';

describe(`backups: upload an archive of instance A (SQLite) to instance B (${MARIADB_URL ? 'MariaDB' : 'SQLite'})`, function () {
  this.timeout(120000);
  let a: TestKernel;
  let b: TestKernel;
  let archive: Buffer;
  let manifestOfA: Buffer;
  const entriesOfA: Record<string, Array<Record<string, unknown>>> = {};
  let backupId = '';
  const FOLDER = () => `${backupId}.svelty-backup`;
  const upload = (t: TestKernel, bytes: Buffer, identity = 'admin', query = '') => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'backup.svelty-backup.tar.gz');
    return t.request(`/api/backups/upload${query}`, { method: 'POST', body: form, identity });
  };
  /** A backup that moves to another installation carries its passphrase (the default key is A's own). */
  const PASSPHRASE = 'moving between installations';
  const entries = async (t: TestKernel, name: string) => {
    const r = await t.request(`/api/collections/${name}?limit=100`, { identity: 'admin' });
    expect(r.status).to.equal(200);
    const items = (await r.json()).data.items as Array<Record<string, unknown>>;
    return items.sort((x, y) => String(x._id).localeCompare(String(y._id)));
  };
  /** Only the accepted backup is left in B's backups folder: no .partial, no extracted leftovers. */
  const backupsFolderOfB = () => readdirSync(join(b.dataDir, 'backups')).sort();

  before(async function () {
    const fields = [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'meta', type: 'json' },
      { name: 'at', type: 'date' },
    ];
    // One instance at a time: Sequelize models are bound to the last kernel booted in a process.
    a = await startTestKernel({ db: 'sqlite', plugins: [fixturePlugin('test-identity')] });
    for (const name of ['uposts', 'unotes']) {
      const r = await a.request('/api/collections', { method: 'POST', identity: 'admin', json: { name, fields } });
      expect(r.status, await r.text()).to.equal(201);
    }
    for (let i = 0; i < 25; i++)
      expect(
        (
          await a.request('/api/collections/uposts', {
            method: 'POST',
            identity: 'admin',
            json: {
              title: `Post ${i} ✓ "q"\nline`,
              views: i * 1.5,
              flag: i % 2 === 0,
              meta: { i, tags: ['a'] },
              at: '2026-01-02T03:04:05.000Z',
            },
          })
        ).status,
      ).to.equal(201);
    for (let i = 0; i < 3; i++)
      expect(
        (await a.request('/api/collections/unotes', { method: 'POST', identity: 'admin', json: { title: `Note ${i}` } })).status,
      ).to.equal(201);
    const created = await a.request('/api/backups/create', { method: 'POST', identity: 'admin', json: { passphrase: PASSPHRASE } });
    expect(created.status).to.equal(200);
    backupId = (await created.json()).data.backupId;
    const dl = await a.request(`/api/backups/${backupId}/download`, { identity: 'admin' });
    expect(dl.status).to.equal(200);
    archive = Buffer.from(await dl.arrayBuffer());
    manifestOfA = readFileSync(join(a.dataDir, 'backups', FOLDER(), 'manifest.json'));
    for (const name of ['uposts', 'unotes']) entriesOfA[name] = await entries(a, name);
    await a.close();

    b = await startTestKernel({
      db: MARIADB_URL ? 'mariadb' : 'sqlite',
      plugins: [fixturePlugin('test-identity')],
      config: { plugins: { options: { backups: { uploadMaxExtractedBytes: 4 * 1024 * 1024, uploadMaxEntries: 40 } } } },
    });
    for (const name of ['uposts', 'unotes']) {
      const r = await b.request('/api/collections', { method: 'POST', identity: 'admin', json: { name, fields } });
      expect(r.status, await r.text()).to.equal(201);
    }
    // B has content of its own that the restore replaces.
    expect(
      (await b.request('/api/collections/uposts', { method: 'POST', identity: 'admin', json: { title: 'only on B' } })).status,
    ).to.equal(201);
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it('non-administrators are refused (403) and nothing is kept', async () => {
    const r = await upload(b, archive, 'editor');
    expect(r.status).to.equal(403);
    expect(existsSync(join(b.dataDir, 'backups')) ? backupsFolderOfB() : []).to.deep.equal([]);
  });

  it('upload -> listed -> validate -> restore-plan -> restore: B holds exactly A’s entries', async () => {
    // A's manifest is authenticated with A's key: B refuses it unless its administrator takes it as foreign.
    const refused = await upload(b, archive);
    const refusal = await refused.json();
    expect(refused.status, JSON.stringify(refusal)).to.equal(400);
    expect(refusal).to.include({ error: 'BACKUP_UNTRUSTED', mac: 'foreign' });
    expect(existsSync(join(b.dataDir, 'backups')) ? backupsFolderOfB() : []).to.deep.equal([]);
    const r = await upload(b, archive, 'admin', '?foreign=true');
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).to.equal(201);
    expect(body.data.backup).to.include({ backupId, collections: 2, entries: 28, encrypted: true });
    expect(body.data.importedAsForeign).to.equal(true);
    expect(backupsFolderOfB()).to.deep.equal([FOLDER()]);
    const list = (await (await b.request('/api/backups', { identity: 'admin' })).json()).data.backups;
    expect(list.map((x: any) => x.backupId)).to.deep.equal([backupId]);
    const valid = await b.request('/api/backups/validate', {
      method: 'POST',
      identity: 'admin',
      json: { backupId, passphrase: PASSPHRASE },
    });
    expect((await valid.json()).data).to.deep.equal({ valid: true, problems: [] });
    const plan = await b.request('/api/backups/restore-plan', {
      method: 'POST',
      identity: 'admin',
      json: { backupId, passphrase: PASSPHRASE },
    });
    const planBody = (await plan.json()).data;
    expect(plan.status, JSON.stringify(planBody)).to.equal(200);
    expect(planBody.blockedReasons).to.deep.equal([]);
    const restored = await b.request('/api/backups/restore', {
      method: 'POST',
      identity: 'admin',
      json: { planId: planBody.planId, planHash: planBody.planHash, confirmed: true },
    });
    const answer = (await restored.json()).data;
    expect(restored.status, JSON.stringify(answer)).to.equal(200);
    expect(answer.outcome, JSON.stringify(answer)).to.equal('success');
    expect(answer.verify?.ok, JSON.stringify(answer.verify)).to.equal(true);
    for (const name of ['uposts', 'unotes']) {
      const onA = entriesOfA[name]!;
      expect(onA.length).to.be.greaterThan(0);
      const onB = await entries(b, name);
      expect(onB.length).to.equal(onA.length);
      expect(onB).to.deep.equal(onA);
    }
  });

  it('the same archive again: 409 BACKUP_EXISTS, the listed backup unchanged', async () => {
    const r = await upload(b, archive);
    expect(r.status).to.equal(409);
    expect((await r.json()).error).to.equal('BACKUP_EXISTS');
    expect(backupsFolderOfB()).to.deep.equal([FOLDER()]);
  });

  const hostile: Array<[string, () => Buffer, number, string]> = [
    [
      'path traversal (..)',
      () => tarGz(tarEntry(`${FOLDER()}/`, '', '5'), tarEntry(`${FOLDER()}/../../escaped.txt`, 'pwned')),
      400,
      'BACKUP_ARCHIVE_UNSAFE_PATH',
    ],
    ['an absolute path', () => tarGz(tarEntry('/tmp/cms-backup-upload-escaped.txt', 'pwned')), 400, 'BACKUP_ARCHIVE_UNSAFE_PATH'],
    [
      'a symbolic link',
      () => tarGz(tarEntry('20260101T000000000Z-00000009.svelty-backup/content', '', '2', '/etc')),
      400,
      'BACKUP_ARCHIVE_LINK',
    ],
    [
      'a hard link',
      () => tarGz(tarEntry('20260101T000000000Z-0000000a.svelty-backup/x', '', '1', '/etc/passwd')),
      400,
      'BACKUP_ARCHIVE_LINK',
    ],
    [
      'a character device',
      () => tarGz(tarEntry('20260101T000000000Z-0000000a.svelty-backup/dev', '', '3')),
      400,
      'BACKUP_ARCHIVE_SPECIAL_FILE',
    ],
    [
      'a decompression bomb (16 MiB of zeros, limit 4 MiB)',
      () => tarGz(tarEntry('20260101T000000000Z-0000000b.svelty-backup/content/a.ndjson', Buffer.alloc(16 * 1024 * 1024))),
      413,
      'BACKUP_ARCHIVE_LIMIT',
    ],
    [
      'too many entries (60, limit 40)',
      () => tarGz(...Array.from({ length: 60 }, (_, i) => tarEntry(`20260101T000000000Z-0000000c.svelty-backup/f${i}`, 'x'))),
      413,
      'BACKUP_ARCHIVE_LIMIT',
    ],
    ['not gzip', () => Buffer.from('plain text, not an archive'), 400, 'BACKUP_ARCHIVE_INVALID'],
    [
      'no manifest.json',
      () => tarGz(tarEntry('20260101T000000000Z-0000000d.svelty-backup/checksums.sha256', 'x')),
      400,
      'BACKUP_ARCHIVE_INVALID',
    ],
    ['files outside a backup folder', () => tarGz(tarEntry('somewhere/file.txt', 'x')), 400, 'BACKUP_ARCHIVE_INVALID'],
  ];
  for (const [label, make, status, code] of hostile)
    it(`refuses ${label}: ${status} ${code}, nothing left on disk`, async () => {
      const r = await upload(b, make());
      const body = await r.json();
      expect(r.status, JSON.stringify(body)).to.equal(status);
      expect(body.error).to.equal(code);
      expect(backupsFolderOfB()).to.deep.equal([FOLDER()]);
      expect(existsSync(join(b.dataDir, 'escaped.txt'))).to.equal(false);
      expect(existsSync('/tmp/cms-backup-upload-escaped.txt')).to.equal(false);
      expect(readdirSync(b.dataDir).filter((n) => n.includes('escaped'))).to.deep.equal([]);
    });

  it('the manifest must match the folder: a renamed folder is refused', async () => {
    // Re-pack A's real files under another id: manifest.backupId no longer matches.
    const other = '20260101T000000000Z-0000000e.svelty-backup';
    const manifest = manifestOfA;
    const r = await upload(b, tarGz(tarEntry(`${other}/`, '', '5'), tarEntry(`${other}/manifest.json`, manifest)));
    const body = await r.json();
    expect(r.status).to.equal(400);
    expect(body.error).to.equal('BACKUP_ARCHIVE_INVALID');
    expect(body.message).to.match(/manifest\.json names backup/);
    expect(backupsFolderOfB()).to.deep.equal([FOLDER()]);
  });
});
