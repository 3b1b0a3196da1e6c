import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { PASSWORD, signInWithApi, useAdminUi } from '../helpers/browser.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 32 item 6 in the browser: more than 15 minutes after signing in with the password, creating a
 * website token answers 403 REAUTH_REQUIRED; the admin UI's API client asks for the password once (one
 * dialog for every page), gets a proof and repeats the call; the proof is reused for the next credential.
 */
for (const variant of DB_VARIANTS) {
  describe(`admin UI: sudo mode asks for the password (${variant.name})`, function () {
    this.timeout(90000);
    const { b, t } = useAdminUi(variant);

    it('a token created 16 minutes after sign-in: the dialog asks for the password, then the token is created narrowed; the next key needs no second prompt', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      // Time passes: the session proved its password 16 minutes ago.
      await t.kernel.sequelize.query('UPDATE auth_sessions SET password_at = ?', { replacements: [Date.now() - 16 * 60_000] });
      const posts: Array<{ url: string; status: number; proof: string | undefined }> = [];
      page.on('response', (r) => {
        if (r.request().method() === 'POST' && /\/api\/(website-tokens|api-keys)$/.test(r.url()))
          posts.push({ url: r.url(), status: r.status(), proof: r.request().headers()['x-reauth-proof'] });
      });

      await page.goto(`${t.url}/admin/account`);
      const tokens = page.getByRole('region', { name: 'Website tokens' });
      await tokens.getByLabel('Name').fill('Marketing site');
      await tokens.getByRole('button', { name: 'Create website token' }).click();

      const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
      await dialog.waitFor();
      await dialog.getByLabel('Password').fill('not my password');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.getByRole('alert').getByText('That password is not correct.').waitFor();
      await dialog.getByLabel('Password').fill(PASSWORD);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await tokens.getByText('Copy the website token now').waitFor();
      await dialog.waitFor({ state: 'hidden' });
      expect(posts.map((p) => p.status)).to.deep.equal([403, 201]);
      expect(posts[0]!.proof).to.equal(undefined);
      expect(posts[1]!.proof).to.match(/^\d+\.[A-Za-z0-9_-]{43}$/);
      // Narrowed by default: the listed token carries only what was ticked.
      await tokens.getByRole('cell', { name: 'content:read' }).waitFor();
      const [row] = await t.kernel.sequelize.query<{ permissions: string }>(
        "SELECT permissions FROM auth_website_tokens WHERE name = 'Marketing site'",
        { type: QueryTypes.SELECT },
      );
      expect(JSON.parse(row!.permissions)).to.deep.equal(['content:read']);

      // Within the proof's 5 minutes the next credential goes through without a second prompt.
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByLabel('Name').fill('Deploy script');
      await keys.getByRole('button', { name: 'Create API key' }).click();
      await keys.getByText('Copy the API key now').waitFor();
      expect(await dialog.isVisible()).to.equal(false);
      expect(posts.map((p) => p.status)).to.deep.equal([403, 201, 403, 201]);

      // Cancelling the dialog leaves nothing created and says why.
      await t.kernel.sequelize.query('UPDATE auth_sessions SET password_at = ?', { replacements: [Date.now() - 16 * 60_000] });
      await page.reload();
      await tokens.getByLabel('Name').fill('Cancelled');
      await tokens.getByRole('button', { name: 'Create website token' }).click();
      await dialog.waitFor();
      // The cached proof still fits this session: the reload dropped it, so the dialog asks again.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await tokens
        .getByRole('alert')
        .getByText(/Confirm your password first/)
        .waitFor();
      const [count] = await t.kernel.sequelize.query<{ n: number }>(
        "SELECT COUNT(*) AS n FROM auth_website_tokens WHERE name = 'Cancelled'",
        {
          type: QueryTypes.SELECT,
        },
      );
      expect(Number(count!.n)).to.equal(0);
    });
  });
}
