import { expect } from 'chai';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';

const PASSWORD = 'correct horse battery';

/** A kernel after headless setup (seeded settings), with the test identities. */
const kernel = (backups: Record<string, unknown> = {}) =>
  startTestKernel({
    setup: true,
    plugins: [fixturePlugin('test-identity')],
    config: {
      plugins: {
        options: { backups, auth: { bcryptRounds: 4 }, setup: { admin: { email: 'owner@example.com', password: PASSWORD } } },
      },
    },
  });

describe('BACKUP_RETENTION_COUNT (System Setting): backups kept', function () {
  this.timeout(60000);
  const kernels: TestKernel[] = [];
  after(async () => {
    for (const k of kernels) await k.close();
  });
  const create = async (t: TestKernel): Promise<string> => {
    const res = await t.request('/api/backups/create', { method: 'POST', identity: 'admin', json: {} });
    expect(res.status).to.equal(200);
    return (await res.json()).data.backupId;
  };
  const listed = async (t: TestKernel): Promise<string[]> =>
    (await (await t.request('/api/backups', { identity: 'admin' })).json()).data.backups.map((b: { backupId: string }) => b.backupId);

  it('the setting decides how many completed backups are kept, from the next backup on', async () => {
    const t = await kernel();
    kernels.push(t);
    const settings = t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings');
    await settings.set('BACKUP_RETENTION_COUNT', 2);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await create(t));
    expect(await listed(t)).to.deep.equal([ids[2], ids[1]]);
    await settings.set('BACKUP_RETENTION_COUNT', 1);
    ids.push(await create(t));
    expect(await listed(t)).to.deep.equal([ids[3]]);
  });

  it('a configured retentionCount (option or BACKUP_RETENTION_COUNT variable) wins over the setting', async () => {
    const t = await kernel({ retentionCount: 3 });
    kernels.push(t);
    await t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings').set('BACKUP_RETENTION_COUNT', 1);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await create(t));
    expect(await listed(t)).to.deep.equal([...ids].reverse());
  });
});
