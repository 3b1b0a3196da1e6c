import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shot, signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { checksumOf } from '../../plugins/config-sync/config-sync-service.js';

// The Data pages (config, migrations, backups): the plan -> review -> confirm -> apply path of each, on SQLite.
const PASSWORD = 'correct horse battery';

describe('admin UI: data pages in the browser (sqlite)', function () {
  this.timeout(120000);
  const b = useBrowser();
  const t = useUiKernel(
    { db: 'sqlite' },
    {
      users: [{ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' }],
    },
  );

  const api = async (method: 'GET' | 'POST' | 'DELETE', path: string, data?: unknown) => {
    const res = await b.context.request.fetch(`${t.url}${path}`, { method, data: data as any });
    const body = res.status() === 204 ? {} : await res.json();
    if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${JSON.stringify(body)}`);
    return body.data;
  };

  it('config: export, drift after a change, plan mirror, Apply only after typing the word, then in sync', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    // A first theme (it becomes the active one, which mirror never deletes).
    await api('POST', '/api/theme/create', { name: 'House style' });
    await page.goto(`${t.url}/admin/data/config`);
    await page.getByRole('heading', { name: 'Configuration', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Configuration files' }).waitFor();
    await page.getByRole('button', { name: 'Export to files' }).click();
    // The badge exactly: a drifted status's own text ends with "N in sync.", which a substring match would take.
    await page.getByTestId('config-status').getByText('In sync', { exact: true }).waitFor();

    // A change through the API: a theme only in the database.
    await api('POST', '/api/theme/create', { name: 'Staging look' });
    // The answer to a status request issued after the change (not one the export started earlier and that is
    // still in flight: waitForResponse would take that one) is what the page then shows.
    const [asked] = await Promise.all([
      page.waitForRequest((r) => new URL(r.url()).pathname === '/api/config/status' && r.method() === 'GET'),
      page.getByRole('button', { name: 'Refresh' }).click(),
    ]);
    const refreshed = (await asked.response())!;
    expect(((await refreshed.json()) as { data: { inSync: boolean } }).data.inSync).to.equal(false);
    await page.getByTestId('config-status').getByText('Drift').waitFor();
    expect(await page.getByTestId('config-status').textContent()).to.match(/1 only in the database/);
    await page.getByTestId('status-type-theme').getByText('only in database').waitFor();

    await page.getByLabel('Mode').selectOption('mirror');
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const review = page.getByTestId('plan-review');
    await review.waitFor();
    expect(await page.getByTestId('plan-risk').textContent()).to.equal('destructive');
    expect(await page.getByTestId('plan-summary').textContent()).to.match(/Deleted\s*1/);
    await page.getByTestId('plan-operations').getByText('Staging look').waitFor();
    const applyButton = review.getByRole('button', { name: 'Apply' });
    expect(await applyButton.isDisabled()).to.equal(true);
    await page.getByLabel('Type mirror to confirm').fill('mirro');
    expect(await applyButton.isDisabled()).to.equal(true);
    await page.getByLabel('Type mirror to confirm').fill('mirror');
    expect(await applyButton.isDisabled()).to.equal(false);
    await shot(page, 'data-config-plan');
    await applyButton.click();
    await page.getByTestId('apply-outcome').waitFor();
    expect(await page.getByTestId('apply-outcome').getAttribute('data-outcome')).to.equal('success');
    expect(await page.getByTestId('apply-outcome').textContent()).to.match(/1 deleted/);
    await page.getByTestId('config-status').getByText('In sync', { exact: true }).waitFor();
    // The completion stream reports the apply live.
    await page
      .getByTestId('config-completions')
      .getByText(/1 deleted/)
      .waitFor();
    const themes = await api('GET', '/api/theme/list');
    expect(JSON.stringify(themes)).to.not.contain('Staging look');
    await shot(page, 'data-config-applied');
  });

  it('config: a plan of 100 or more changes runs as a background job whose progress the page follows to the end', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    const folder = join(t.dataDir, 'config', 'sync', 'role');
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 120; i++) {
      const name = `bulk_${String(i).padStart(3, '0')}`;
      const data = { description: `Bulk role ${i}`, permissions: ['content:read'] };
      writeFileSync(
        join(folder, `${name}.json`),
        JSON.stringify({
          uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          type: 'role',
          name,
          checksum: checksumOf(data),
          data,
        }),
      );
    }
    await page.goto(`${t.url}/admin/data/config`);
    await page.getByTestId('config-status').getByText('120 only in the files', { exact: false }).waitFor();
    await page.getByLabel('Mode').selectOption('add');
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    await page.getByTestId('plan-review').waitFor();
    expect(await page.getByTestId('plan-summary').textContent()).to.match(/Created\s*120/);
    expect(await page.getByTestId('confirm-word').count()).to.equal(0);
    const queued = page.waitForResponse((r) => r.url().endsWith('/api/config/apply'));
    await page.getByTestId('plan-review').getByRole('button', { name: 'Apply' }).click();
    expect((await queued).status()).to.equal(202);
    await page.locator('[data-testid="apply-job"][data-status="completed"]').waitFor({ timeout: 60000 });
    expect(await page.getByTestId('apply-job').textContent()).to.match(/120 created/);
    await page.getByTestId('config-status').getByText('In sync', { exact: true }).waitFor();
    await page
      .getByTestId('config-completions')
      .getByText(/background job/)
      .waitFor();
    await shot(page, 'data-config-job');
  });

  it('config: a blocked plan says what blocks it and not also "Nothing to change"', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    const file = join(t.dataDir, 'config', 'sync', 'role', 'tampered_role.json');
    const data = { description: 'Changed after export', permissions: ['content:read'] };
    // A checksum that does not match its data: the file was changed after its export.
    writeFileSync(
      file,
      JSON.stringify({ uuid: '00000000-0000-4000-8000-999999999999', type: 'role', name: 'tampered_role', checksum: '0'.repeat(64), data }),
    );
    try {
      await page.goto(`${t.url}/admin/data/config`);
      await page.getByLabel('Mode').selectOption('merge');
      await page.getByRole('button', { name: 'Plan', exact: true }).click();
      const review = page.getByTestId('plan-review');
      await review.waitFor();
      await review.getByRole('alert').getByText('This plan cannot be applied').waitFor();
      expect(await review.getByRole('alert').textContent()).to.contain('tampered_role');
      expect(await review.getByText('Nothing to change').count(), 'a blocked plan is not "nothing to change"').to.equal(0);
      await review.getByText('The changes are listed once the problems above are resolved.').waitFor();
      expect(await review.getByRole('button', { name: 'Apply' }).isDisabled()).to.equal(true);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('migrations: a file migration shows pending, is planned and applied, then listed as applied', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await api('POST', '/api/collections', {
      name: 'articles',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'views', type: 'number' },
      ],
    });
    for (const title of ['One', 'Two', 'Three']) await api('POST', '/api/collections/articles', { title });
    mkdirSync(join(t.dataDir, 'migrations'), { recursive: true });
    writeFileSync(
      join(t.dataDir, 'migrations', 'x.json'),
      JSON.stringify({
        id: '2026-11-25-articles-tidy',
        description: 'Views start at 0, titles in lower case',
        collection: 'articles',
        steps: [
          { op: 'backfill', field: 'views', value: 0 },
          { op: 'lowercase', field: 'title' },
        ],
      }),
    );
    await page.goto(`${t.url}/admin/data/migrations`);
    await page.getByRole('heading', { name: 'Data migrations', level: 1 }).waitFor();
    const pending = page.getByTestId('migrations-pending');
    await pending.getByText('2026-11-25-articles-tidy').waitFor();
    expect(await pending.textContent()).to.match(/warning/);

    await page.getByRole('button', { name: 'Plan pending migrations' }).click();
    await page.getByTestId('plan-review').waitFor();
    expect(await page.getByTestId('plan-risk').textContent()).to.equal('warning');
    expect(await page.getByTestId('plan-summary').textContent()).to.match(/Updated\s*3/);
    await page.getByTestId('plan-operations').getByText('2026-11-25-articles-tidy').waitFor();
    await shot(page, 'data-migrations-plan');
    await page.getByTestId('plan-review').getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('apply-outcome').waitFor();
    expect(await page.getByTestId('apply-outcome').getAttribute('data-outcome')).to.equal('success');
    await page.getByTestId('migrations-applied').getByText('2026-11-25-articles-tidy').waitFor();
    await page.getByTestId('migrations-none-pending').waitFor();
    const items = (await api('GET', '/api/collections/articles?limit=10')).items as Array<Record<string, any>>;
    expect(items.map((i) => i.title ?? i.data?.title).sort()).to.deep.equal(['one', 'three', 'two']);

    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await page.getByTestId('migrations-verify').textContent()).to.match(/Verified/);
    await shot(page, 'data-migrations-applied');
  });

  it('backups: create, list, validate, delete an entry, restore after reviewing the plan and typing "restore"', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await api('POST', '/api/collections', { name: 'notes', fields: [{ name: 'title', type: 'text' }] });
    for (const title of ['Keep me', 'And me']) await api('POST', '/api/collections/notes', { title });

    await page.goto(`${t.url}/admin/data/backups`);
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create backup' }).click();
    const list = page.getByTestId('backups-list');
    await list.waitFor();
    const row = list.locator('tr[data-backup-id]').first();
    expect(await list.locator('tr[data-backup-id]').count()).to.equal(1);
    await row.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation-valid').waitFor();

    const notes = (await api('GET', '/api/collections/notes?limit=10')).items as Array<Record<string, any>>;
    const gone = notes.find((n) => (n.title ?? n.data?.title) === 'Keep me')!;
    await api('DELETE', `/api/collections/notes/${gone._id ?? gone.id}`);
    expect((await api('GET', '/api/collections/notes?limit=10')).items).to.have.length(1);

    await row.getByRole('button', { name: 'Restore…' }).click();
    await page.getByTestId('maintenance-warning').waitFor();
    expect(await page.getByTestId('maintenance-warning').textContent()).to.match(/maintenance/);
    await page.getByRole('button', { name: 'Show what restore would change' }).click();
    const review = page.getByTestId('plan-review');
    await review.waitFor();
    expect(await page.getByTestId('plan-risk').textContent()).to.equal('destructive');
    await page.getByTestId('plan-operations').getByText('notes').first().waitFor();
    const restoreButton = review.getByRole('button', { name: 'Restore', exact: true });
    expect(await restoreButton.isDisabled()).to.equal(true);
    await page.getByLabel('Type restore to confirm').fill('restore');
    await shot(page, 'data-backups-restore-plan');
    await restoreButton.click();
    await page.getByTestId('apply-outcome').waitFor({ timeout: 30000 });
    expect(await page.getByTestId('apply-outcome').getAttribute('data-outcome')).to.equal('success');
    const after = (await api('GET', '/api/collections/notes?limit=10')).items as Array<Record<string, any>>;
    expect(after.map((n) => n.title ?? n.data?.title).sort()).to.deep.equal(['And me', 'Keep me']);
    await shot(page, 'data-backups-restored');
  });

  it('backups: an encrypted backup asks for its passphrase to validate; a wrong one shows the problem in words', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/data/backups`);
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    await page.getByTestId('create-passphrase').fill('a long secret phrase');
    await page.getByRole('button', { name: 'Create backup' }).click();
    const encrypted = page.getByTestId('backups-list').locator('tr[data-backup-id]', { hasText: 'encrypted (passphrase)' });
    await encrypted.waitFor();
    expect(await page.getByTestId('create-passphrase').inputValue()).to.equal('');
    await encrypted.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validate-passphrase').fill('not the phrase');
    await page.getByRole('dialog').getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation-problems').waitFor();
    await encrypted.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validate-passphrase').fill('a long secret phrase');
    await page.getByRole('dialog').getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation-valid').waitFor();
    await shot(page, 'data-backups-list');
  });
});
