import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import sharp from 'sharp';
import { openAdminPage, PASSWORD, useAdminUi } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { signInCookie } from '../helpers/users.js';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: media library in the browser (${variant.name})`, function () {
    this.timeout(120000);
    let cookie: string;
    let png: Buffer;
    const { b, t } = useAdminUi(variant, {
      seed: async () => {
        cookie = (await signInCookie(t, 'ada@example.com', PASSWORD))!;
        png = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 30, g: 120, b: 220 } } })
          .png()
          .toBuffer();
      },
    });
    const apiGet = async (path: string) => (await (await t.request(path, { headers: { cookie } })).json()).data;

    it('uploads a file with progress, files it in a folder, shares it with a password and opens the link in another browser', async function () {
      const { page, context } = b;
      await openAdminPage(b, t, 'media', 'Media');
      await page.getByText('No files here yet.').waitFor();

      // Upload: the progress row reaches Done and the tile shows the thumbnail.
      await page.getByLabel('Upload files').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: png });
      const uploads = page.getByRole('list', { name: 'Uploads' });
      await uploads.getByText('Done').waitFor();
      expect(await uploads.getByRole('progressbar', { name: 'Upload of harbour.png' }).getAttribute('value')).to.equal('1');
      const tile = page.locator('[data-media="harbour.png"]');
      await tile.locator('img').waitFor();
      const thumb = await tile.locator('img').getAttribute('src');
      expect(thumb).to.match(/^\/files\//);
      const thumbRes = await context.request.get(`${t.url}${thumb}`);
      expect(thumbRes.status()).to.equal(200);

      // A folder, and the file moved into it through the selection bar.
      await page.getByRole('button', { name: 'New folder' }).click();
      const folderDialog = page.getByRole('dialog', { name: 'New folder' });
      await folderDialog.getByLabel('Folder name').fill('Press kit');
      await folderDialog.getByRole('button', { name: 'Create folder' }).click();
      const folders = page.getByRole('navigation', { name: 'Folders' });
      await folders.getByRole('button', { name: /Press kit/ }).waitFor();
      await folders.getByRole('button', { name: 'All media' }).click();
      await tile.getByLabel('Select harbour.png').check();
      await page.getByLabel('Target folder').selectOption({ label: 'Press kit' });
      await page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Move' }).click();
      await folders.getByRole('button', { name: /Press kit\s*1/ }).waitFor();
      const [item] = (await apiGet('/api/media')).items;
      const [folder] = await apiGet('/api/media/folders');
      expect(item.folderId).to.equal(folder._id);

      // The list view, then the share dialog: 24 hours, with a password.
      await page.getByRole('button', { name: 'List' }).click();
      await page.getByRole('button', { name: 'Share harbour.png' }).click();
      const share = page.getByRole('dialog', { name: 'Share harbour.png' });
      await share.getByLabel('7 days').check();
      await share.getByLabel('Protect with a password').check();
      await share.getByLabel('Password', { exact: true }).fill('open sesame');
      await share.getByRole('button', { name: 'Create link' }).click();
      const linkInput = share.getByRole('textbox', { name: 'Share link' });
      await linkInput.waitFor();
      const link = await linkInput.inputValue();
      expect(link).to.match(new RegExp(`^${t.url}/admin/share\\?id=${item._id}&token=`));
      const links = share.getByRole('table', { name: 'Share links' });
      await links.locator('tbody tr').first().waitFor();
      expect(await links.locator('tbody tr').count()).to.equal(1);
      expect(await links.locator('tbody tr td').nth(2).textContent()).to.equal('Yes');
      const saved = await apiGet(`/api/media/${item._id}`);
      const days = (Date.parse(saved.sharedLinks[0].expiresAt) - Date.now()) / 86400000;
      expect(days).to.be.within(6.9, 7.01);

      // Another browser (no session): the password is asked, a wrong one refused, the right one opens the file.
      const other = await b.newContext();
      const visitor = await other.newPage();
      // The password never travels in a URL (logs, history): every request of the visitor is recorded.
      const requested: string[] = [];
      visitor.on('request', (r) => requested.push(r.url()));
      await visitor.goto(link);
      await visitor.getByRole('heading', { name: 'Shared file' }).waitFor();
      await visitor.getByText('This file is protected with a password.').waitFor();
      await visitor.getByLabel('Password').fill('wrong guess');
      await visitor.getByRole('button', { name: 'Open' }).click();
      await visitor.getByText('That password is not right.').waitFor();
      await visitor.getByLabel('Password').fill('open sesame');
      await visitor.getByRole('button', { name: 'Open' }).click();
      const shown = visitor.getByTestId('shared-file');
      await shown.getByText('harbour.png').waitFor();
      await shown.getByRole('img', { name: 'Preview of harbour.png' }).waitFor();
      const [download] = await Promise.all([visitor.waitForEvent('download'), shown.getByRole('button', { name: 'Download' }).click()]);
      expect(download.suggestedFilename()).to.equal('harbour.png');
      expect(Buffer.compare(await readFile((await download.path())!), png)).to.equal(0);
      expect(requested.filter((u) => u.includes('sesame') || u.includes('password='))).to.deep.equal([]);

      // Revoked in the dialog: the visitor's link stops working.
      await share.getByRole('button', { name: 'Revoke' }).click();
      await share.getByText('No share links yet.').waitFor();
      await visitor.reload();
      await visitor.getByText('This link does not exist or was revoked.').waitFor();
    });

    it('says in words why a file was refused, inside its card: no full progress bar, no configuration key, no sideways scrolling', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'media', 'Media');
      // A Windows program (MZ header): its detected type is outside the allowed list.
      const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(4096, 0x90)]);
      const longName = `${'installer-for-the-quarterly-reporting-toolkit-'.repeat(3)}setup.exe`;
      await page.getByLabel('Upload files').setInputFiles({ name: longName, mimeType: 'application/octet-stream', buffer: exe });
      const uploads = page.getByRole('list', { name: 'Uploads' });
      await uploads.getByText('Not uploaded').waitFor();
      expect(await uploads.getByRole('progressbar', { name: `Upload of ${longName}` }).count()).to.equal(0);
      const problem = (await uploads.locator('.uerror').textContent()) ?? '';
      expect(problem)
        .to.match(/not allowed/)
        .and.match(/An administrator can allow more file types/);
      expect(problem).to.not.match(/MEDIA_ALLOWED_TYPES|UNSUPPORTED_MEDIA_TYPE/);
      const overflow = await page.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow, 'the page scrolls sideways').to.be.at.most(0);
    });

    it('deletes a file from its details dialog', async function () {
      const { page } = b;
      await openAdminPage(b, t, 'media');
      await page.getByRole('button', { name: 'Grid' }).click();
      await page
        .getByLabel('Upload files')
        .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain words\n') });
      // Clicking the file's name under its preview opens its details, as the preview does.
      await page.locator('[data-media="notes.txt"]').getByText('notes.txt', { exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'notes.txt' });
      await dialog.getByText('text/plain').waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Open notes.txt' }).click();
      await dialog.getByText('text/plain').waitFor();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await dialog.getByRole('button', { name: 'Yes, delete' }).click();
      await page.locator('[data-media="notes.txt"]').waitFor({ state: 'detached' });
      const names = (await apiGet('/api/media')).items.map((m: { filename: string }) => m.filename);
      expect(names).to.not.include('notes.txt');
    });
  });
}
