import { expect } from 'chai';
import { openAdminPage, PASSWORD, useAdminUi } from '../helpers/browser.js';
import { responseCookie } from '../helpers/kernel.js';

describe('admin UI: users page in the browser', function () {
  this.timeout(90000);
  const { b, t } = useAdminUi();

  it('creates, blocks, unblocks and deletes a user; invites another and revokes the invitation', async function () {
    const { page } = b;
    await openAdminPage(b, t, 'users', 'Users');

    await page.getByRole('button', { name: 'Create user' }).click();
    const create = page.getByRole('dialog', { name: 'Create user' });
    await create.getByLabel('Email').fill('ed@example.com');
    await create.getByLabel(/^Password/).fill('short');
    await create.getByRole('button', { name: 'Create user' }).click();
    await create.locator('.error').first().waitFor();
    expect(await create.locator('.error').first().textContent()).to.match(/8 characters/);
    await create.getByLabel(/^Password/).fill(PASSWORD);
    await create.getByLabel('Role').selectOption('editor');
    await create.getByRole('button', { name: 'Create user' }).click();
    const row = page.locator('tr[data-user="ed@example.com"]');
    await row.waitFor();
    const roleSelect = row.getByLabel('Role of ed@example.com');
    expect(await roleSelect.inputValue()).to.equal('editor');

    // The new user signs in; blocking them ends the session at once.
    const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'ed@example.com', password: PASSWORD } });
    const edCookie = responseCookie(login)!;
    expect((await t.request('/api/user/me', { headers: { cookie: edCookie } })).status).to.equal(200);
    await row.getByRole('button', { name: 'Block ed@example.com' }).click();
    await row.getByText('blocked').waitFor();
    expect((await t.request('/api/user/me', { headers: { cookie: edCookie } })).status).to.equal(401);
    await row.getByRole('button', { name: 'Unblock ed@example.com' }).click();
    await row.getByText('active').waitFor();

    // Role assignment: the select changes the role through the API; the user's open session follows at once.
    const login2 = await t.request('/api/user/login', { method: 'POST', json: { email: 'ed@example.com', password: PASSWORD } });
    const edCookie2 = responseCookie(login2)!;
    await roleSelect.selectOption('viewer');
    await page.getByText('ed@example.com is now Viewer').waitFor();
    expect(
      ((await (await t.request('/api/user/me', { headers: { cookie: edCookie2 } })).json()) as { data: { role: string } }).data.role,
    ).to.equal('viewer');
    expect(await roleSelect.inputValue()).to.equal('viewer');

    // Admins cannot block or delete themselves: no buttons on their own row.
    const me = page.locator('tr[data-user="ada@example.com"]');
    expect(await me.getByRole('button', { name: /Block|Delete/ }).count()).to.equal(0);

    await row.getByRole('button', { name: 'Delete ed@example.com' }).click();
    await page.getByRole('dialog', { name: 'Delete user' }).getByRole('button', { name: 'Delete user' }).click();
    await row.waitFor({ state: 'detached' });

    // Invitation: the link is shown once and works on the public register page's API.
    await page.getByRole('button', { name: 'Invite user' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite user' });
    await invite.getByLabel('Email').fill('vi@example.com');
    await invite.getByLabel('Role').selectOption('viewer');
    await invite.getByRole('button', { name: 'Create invitation' }).click();
    const link = await invite.getByLabel('Invitation link').inputValue();
    expect(link).to.match(new RegExp(`^${t.url}/register\\?token=`));
    const token = new URL(link).searchParams.get('token')!;
    const peek = await (await t.request(`/api/token/${token}`)).json();
    expect(peek.data).to.include({ email: 'vi@example.com', role: 'viewer', valid: true });
    await invite.getByRole('button', { name: 'Done' }).click();
    const invitations = page.getByRole('table', { name: 'Invitations' });
    await invitations.getByText('vi@example.com').waitFor();
    await invitations.getByRole('button', { name: 'Revoke invitation for vi@example.com' }).click();
    await invitations.getByRole('button', { name: 'Revoke invitation for vi@example.com' }).waitFor({ state: 'detached' });
    expect((await t.request(`/api/token/${token}`)).status).to.equal(404);
  });
});
