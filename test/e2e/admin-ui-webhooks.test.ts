import { expect } from 'chai';
import { join } from 'node:path';
import { ADA, PASSWORD, SCREENSHOT_DIR, openAdminPage, useAdminUi } from '../helpers/browser.js';
import { signInCookie } from '../helpers/users.js';
import { signatureValid, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Issue 37, item 6 in the admin UI: the Webhooks page creates a webhook to a loopback receiver (the secret
// shown once, with a copy button), sends a test and sees it succeed in the delivery log, sees a failing
// receiver's delivery retrying, redelivers it (same delivery id), disables and deletes the webhook.
describe('admin UI: webhooks', function () {
  this.timeout(120000);
  let receiver: Receiver;
  let cookie = '';
  const { b, t } = useAdminUi(
    undefined,
    {
      seed: async () => {
        cookie = (await signInCookie(t, ADA.email, PASSWORD))!;
        const res = await t.request('/api/collections', {
          method: 'POST',
          headers: { cookie },
          json: { name: 'posts', fields: [{ name: 'title', type: 'text' }] },
        });
        expect(res.status).to.equal(201);
      },
    },
    // The receiver is on loopback; retries wait a minute (the log shows "retrying" meanwhile).
    { config: { outbound: { allowPrivate: true }, plugins: { options: { webhooks: { pollMs: 100 } } } } as never },
  );
  before(async () => (receiver = await startReceiver()));
  after(async () => receiver?.close());

  it('creates a webhook, tests it, shows a retrying delivery and redelivers it', async function () {
    const page = await openAdminPage(b, t, 'webhooks', 'Webhooks');
    const list = page.getByTestId('webhooks');
    await list.getByText('No webhook yet.').waitFor();
    // The sidebar links the page.
    expect(await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Webhooks' }).count()).to.equal(1);

    await list.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('dialog', { name: 'New webhook' });
    await form.getByLabel('Name').fill('Site build');
    await form.getByLabel(/^URL/).fill(receiver.url);
    // Entry created/updated/deleted are checked by default; add "Entry published", drop "Entry deleted".
    await form.getByRole('checkbox', { name: /Entry published/ }).check();
    await form.getByRole('checkbox', { name: /Entry deleted/ }).uncheck();
    await form.getByRole('button', { name: 'Create webhook' }).click();

    const shown = page.getByRole('dialog', { name: 'The signing secret' });
    const secret = await shown.getByTestId('webhook-secret').innerText();
    expect(secret).to.match(/^whsec_[\w-]{43}$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'The signing secret' }).first().waitFor();
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    const row = list.locator('tr[data-webhook="Site build"]');
    expect(await row.getByTestId('webhook-state').innerText()).to.equal('Enabled');
    expect(await row.innerText())
      .to.include('Entry published')
      .and.not.include('Entry deleted');
    // The secret is not shown again anywhere on the page.
    expect(await page.content()).to.not.contain(secret);

    // Send test: the ping arrives signed; the log shows it succeeded.
    await row.getByRole('button', { name: 'Send test' }).click();
    const log = page.getByTestId('webhook-log');
    await log.getByRole('heading', { name: 'Deliveries of Site build' }).waitFor();
    await log.locator('tr[data-event="ping"] [data-status="succeeded"]').waitFor();
    expect(await log.locator('tr[data-event="ping"]').getByTestId('delivery-response').innerText()).to.equal('200');
    expect(receiver.received).to.have.length(1);
    expect(signatureValid(secret, receiver.received[0]!.headers['x-cms-signature'] as string, receiver.received[0]!.body)).to.equal(true);

    // The receiver fails: an entry's delivery is retrying in the log (refreshed while open).
    receiver.fallback = 500;
    const made = await t.request('/api/collections/posts', { method: 'POST', headers: { cookie }, json: { title: 'Hello' } });
    expect(made.status).to.equal(201);
    const failing = log.locator('tr[data-event="on:create"]');
    await failing.locator('[data-status="retrying"]').waitFor();
    expect(await failing.getByTestId('delivery-response').innerText()).to.equal('500');
    expect(await failing.innerText()).to.include('Entry created');
    const deliveryId = await failing.getAttribute('data-delivery');

    // The receiver is fixed: Redeliver sends the same delivery again, and it succeeds.
    receiver.fallback = 200;
    await failing.getByRole('button', { name: 'Redeliver' }).click();
    await failing.locator('[data-status="succeeded"]').waitFor();
    expect(await failing.getByTestId('delivery-response').innerText()).to.equal('200');
    const ids = receiver.received.filter((r) => r.headers['x-cms-event'] === 'on:create').map((r) => r.headers['x-cms-delivery']);
    expect(ids).to.deep.equal([deliveryId, deliveryId]);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'webhooks.png'), fullPage: true });

    // Disable, then delete after the confirmation.
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByTestId('webhook-state').getByText('Disabled').waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete webhook' });
    expect(await confirm.innerText()).to.include('Site build');
    await confirm.getByRole('button', { name: 'Delete webhook' }).click();
    await list.getByText('No webhook yet.').waitFor();
    const left = await (await t.request('/api/webhooks', { headers: { cookie } })).json();
    expect(left.data).to.deep.equal([]);
  });
});
