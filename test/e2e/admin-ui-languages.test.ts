// The admin UI in more than one language: the user's choice on the account page (preferences.locale),
// the browser's language without one, and a right-to-left catalogue (the generated pseudo-RTL ar-XB)
// that turns the page around.
import { expect } from 'chai';
import { ADA, PASSWORD, openAdminPage, signInWithApi, useAdminUiAsAda } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: its own language (${variant.name})`, function () {
    const { b, t, session } = useAdminUiAsAda(variant);
    const setLocale = async (locale: string | null) => {
      const res = await t.request('/api/user/update-user-attributes', {
        method: 'PUT',
        headers: { cookie: session.cookie },
        json: { preferences: { locale } },
      });
      expect(res.status).to.equal(200);
    };
    afterEach(async () => setLocale(null));

    it('switches to German on the account page: labels, <html lang>, and the choice stays after a reload', async function () {
      const page = await openAdminPage(b, t, 'account', 'Account');
      expect(await page.getAttribute('html', 'lang')).to.equal('en');
      const language = page.getByRole('region', { name: 'Language' });
      await language.getByLabel('Language').selectOption('de');
      await language.getByRole('button', { name: 'Save language' }).click();
      await page.getByRole('heading', { name: 'Sprache', level: 2 }).waitFor();
      expect(await page.getAttribute('html', 'lang')).to.equal('de');
      const nav = page.getByRole('navigation', { name: 'Seiten' });
      await nav.getByRole('link', { name: 'Ihr Konto' }).waitFor();
      await nav.getByRole('link', { name: 'Übersicht' }).waitFor();
      await page.getByRole('button', { name: 'Passwort ändern' }).waitFor();
      expect(
        (await t.request('/api/user/me', { headers: { cookie: session.cookie } }).then((r) => r.json())).data.preferences.locale,
      ).to.equal('de');

      await page.reload();
      await page.getByRole('heading', { name: 'Konto', level: 1 }).waitFor();
      await page.getByRole('region', { name: 'Aktive Sitzungen' }).waitFor();
      // Dates in German: "angemeldet 29.11.2026, 05:40" (Intl in the chosen locale).
      const facts = await page.locator('[data-testid="session"] .muted').first().textContent();
      expect(facts).to.match(/angemeldet \d{2}\.\d{2}\.\d{4}/);
    });

    it('shows the Backups page to a German user in German: labels, dates, the check and the restore review', async function () {
      await setLocale('de');
      const page = await openAdminPage(b, t, 'data/backups', 'Sicherungen');
      expect(await page.getAttribute('html', 'lang')).to.equal('de');
      await page.getByRole('heading', { name: 'Sicherung erstellen', level: 2 }).waitFor();
      await page.getByText('Mediendateien einschließen').waitFor();
      await page.getByRole('button', { name: 'Sicherung erstellen' }).click();
      const row = page.getByTestId('backups-list').locator('tr[data-backup-id]').first();
      await row.waitFor();
      // The column heads and the date in German: "29.11.2026, 08:37" (Intl in the chosen locale).
      await page.getByTestId('backups-list').getByRole('columnheader', { name: 'Verschlüsselt' }).waitFor();
      expect(await row.locator('td').first().textContent()).to.match(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
      await row.getByText('verschlüsselt (Installationsschlüssel)').waitFor();
      await row.getByRole('button', { name: 'Prüfen' }).click();
      await page.getByTestId('validation-valid').waitFor();
      expect(await page.getByTestId('validation-valid').textContent()).to.equal('gültig');
      await page.getByText('Alle Prüfsummen stimmen, und sie lässt sich mit dem Schlüssel dieser Installation entschlüsseln.').waitFor();

      await row.getByRole('button', { name: 'Wiederherstellen …' }).click();
      expect(await page.getByTestId('maintenance-warning').textContent()).to.contain('ist die Instanz im Wartungsmodus');
      await page.getByRole('button', { name: 'Anzeigen, was die Wiederherstellung ändern würde' }).click();
      const review = page.getByTestId('plan-review');
      await review.getByRole('button', { name: 'Wiederherstellen', exact: true }).waitFor();
      // No English word of the page is left (the words that stay the same, such as SHA-256, are no English sentence).
      const text = (await page.locator('#main').textContent())!;
      expect(text).not.to.match(/\b(Backups of|Create backup|Validate|Restore|Download|Refresh|Encrypted|Every checksum)\b/);
    });

    it('shows the media library to a German user in German', async function () {
      await setLocale('de');
      const page = await openAdminPage(b, t, 'media', 'Medien');
      await page.getByRole('button', { name: 'Neuer Ordner' }).waitFor();
      await page.getByText('Hier gibt es noch keine Dateien.').waitFor();
      expect(await page.getByRole('combobox', { name: 'Sortierung' }).locator('option').first().textContent()).to.equal('Neueste zuerst');
      await page.getByRole('button', { name: 'Raster' }).waitFor();
    });

    it("without a preference speaks the browser's language (German here), with English as the default", async function () {
      const context = await b.newContext({ locale: 'de-DE' });
      await signInWithApi(context, t.url, ADA.email, PASSWORD);
      const page = await context.newPage();
      await page.goto(`${t.url}/admin/account`);
      await page.getByRole('heading', { name: 'Konto', level: 1 }).waitFor();
      expect(await page.getAttribute('html', 'lang')).to.equal('de');
      const select = page.getByRole('region', { name: 'Sprache' }).getByLabel('Sprache');
      expect(await select.inputValue(), 'no stored choice').to.equal('');
      expect(await select.locator('option').first().textContent()).to.equal('Die Sprache des Browsers (Deutsch)');
    });

    it('lays the page out right to left with the pseudo-RTL catalogue: <html dir="rtl">, the sidebar on the right', async function () {
      await setLocale('ar-XB');
      const page = await openAdminPage(b, t, 'account');
      await page.waitForFunction(() => (globalThis as any).document.documentElement.dir === 'rtl');
      expect(await page.getAttribute('html', 'lang')).to.equal('ar-XB');
      const sidebar = (await page.locator('#sidebar').boundingBox())!;
      const main = (await page.locator('#main').boundingBox())!;
      expect(sidebar.x, 'the sidebar starts right of the page content').to.be.greaterThan(main.x + main.width - 1);
      // Every message is the English one inside a right-to-left override.
      const heading = await page.locator('#h-profile').textContent();
      expect(heading).to.equal('\u202eProfile\u202c');
    });
  });
}
