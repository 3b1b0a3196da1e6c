import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import { signInWithApi, useBrowser, useUiKernel } from '../helpers/browser.js';
import { commerceCollections, contentAdmin } from '../helpers/dashboard-fixtures.js';
import { responseCookie } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';

for (const variant of DB_VARIANTS) {
  describe(`admin UI: dashboard and system pages in the browser (${variant.name})`, function () {
    this.timeout(90000);
    const b = useBrowser();
    const t = useUiKernel(
      { db: variant.name },
      {
        variant,
        users: [
          { email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' },
          { email: 'vic@example.com', password: PASSWORD, role: 'viewer', username: 'Vic' },
        ],
      },
    );

    it('shows the default widgets, adds one, and keeps it after a reload (saved in the preferences)', async function () {
      const { page, context } = b;
      const session = responseCookie(
        await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } }),
      )!;
      await t.request('/api/collections', {
        method: 'POST',
        headers: { cookie: session },
        json: { name: 'dashnews', fields: [{ name: 'title', type: 'text' }] },
      });
      const entry = (
        await (
          await t.request('/api/collections/dashnews', { method: 'POST', headers: { cookie: session }, json: { title: 'Harbour reopens' } })
        ).json()
      ).data;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/`);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const grid = page.getByRole('list', { name: 'Widgets' });
      await grid.locator('[data-widget="system-health"]').waitFor();
      // The custom elements bundled from widgets/*/component.js speak in words, not raw records.
      const health = grid.locator('cms-widget-system-health .cms-health-status');
      await health.waitFor();
      expect(await health.textContent()).to.match(/^Healthy, up \d+ (s|min)/);
      expect(await grid.locator('cms-widget-system-health').textContent()).to.match(/Database \(sqlite|mariadb\): reachable, \d+ ms/);
      // Latest content: the entry's title links to its editor, with its collection and a relative time.
      const latest = grid.locator('cms-widget-last5-content');
      const link = latest.getByRole('link', { name: 'Harbour reopens' });
      await link.waitFor();
      expect(await link.getAttribute('href')).to.equal(`/admin/content/dashnews/${entry._id}`);
      expect(await latest.textContent()).to.contain('dashnews · draft · just now');
      // A chart where it reads better: the cache monitor's hit-rate donut, or in words while the cache is empty.
      const cache = grid.locator('[data-widget="cache-monitor"]');
      await cache.locator('svg[role="img"], p.muted').first().waitFor();
      expect(await cache.locator('.cms-widget-error').count()).to.equal(0);

      await page.getByRole('button', { name: 'Add widget' }).click();
      const picker = page.getByRole('region', { name: 'Available widgets' });
      // The paid widget shows its trial state instead of breaking.
      await picker
        .getByText(/Trial until/)
        .first()
        .waitFor();
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT' && r.ok()),
        picker.getByRole('button', { name: 'Add Memory' }).click(),
      ]);
      await grid.locator('[data-widget="memory"]').waitFor();

      await page.reload();
      await page.getByRole('list', { name: 'Widgets' }).locator('[data-widget="memory"]').waitFor();
      const ids = await page.locator('[data-widget]').evaluateAll((els) => els.map((e) => e.getAttribute('data-widget')));
      expect(ids).to.deep.equal(['activity', 'system-health', 'last5-content', 'last5-media', 'cache-monitor', 'memory']);

      // Customise: move the new widget first, make it full width, remove the media widget; all saved.
      await page.getByRole('button', { name: 'Customise' }).click();
      for (let i = 0; i < 5; i++) {
        await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT'),
          page.getByRole('button', { name: 'Move Memory earlier' }).click(),
        ]);
      }
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT'),
        page.getByLabel('Width of Memory').selectOption('12'),
      ]);
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT'),
        page.locator('[data-widget="last5-media"]').getByRole('button', { name: 'Remove' }).click(),
      ]);
      await page.reload();
      await page.locator('[data-widget="memory"]').waitFor();
      const after = await page.locator('[data-widget]').evaluateAll((els) => els.map((e) => e.getAttribute('data-widget')));
      expect(after).to.deep.equal(['memory', 'activity', 'system-health', 'last5-content', 'cache-monitor']);
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
      const layout = (await (await t.request('/api/dashboard/layout', { headers: { cookie: responseCookie(login)! } })).json()).data;
      expect(layout.widgets[0]).to.deep.include({ id: 'memory', x: 0, y: 0, w: 12 });
    });

    it('system page shows health, the boot phase and the plugins with their state', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/`);
      await page.getByRole('link', { name: 'System' }).click();
      await page.waitForURL(/\/admin\/system$/);
      expect(await page.getByTestId('phase').textContent()).to.match(/READY|FULL|WARMED/);
      const table = page.getByTestId('plugins');
      await table.getByText('admin-ui', { exact: true }).waitFor();
      await table.getByText('dashboard', { exact: true }).waitFor();
      const row = table.locator('tr', { has: page.getByText('auth', { exact: true }) });
      expect(await row.locator('.badge').textContent()).to.equal('booted');
      await page.getByLabel('Filter plugins').fill('storage');
      expect(await table.locator('tbody tr').count()).to.be.greaterThan(0);
      expect(await table.getByText('admin-ui', { exact: true }).count()).to.equal(0);
    });

    it('applies the effective admin theme as CSS variables, and a changed preference on the next load', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
      const effective = await context.request.get(`${t.url}/api/theme/effective`);
      if (effective.status() === 404) this.skip(); // the themes plugin is not installed: the UI keeps its defaults
      const theme = (await effective.json()).data;
      await page.goto(`${t.url}/admin/`);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const [name, value] = Object.entries(theme.cssVariables as Record<string, string>).find(([k]) => k.startsWith('--color-primary-'))!;
      await page.waitForFunction(
        ([n, v]) => {
          const d = (globalThis as any).document;
          return (globalThis as any).getComputedStyle(d.documentElement).getPropertyValue(n!).trim() === v;
        },
        [name, value],
      );
      const before = await page.evaluate(() => (globalThis as any).document.documentElement.dataset.density as string);
      expect(before).to.equal(theme.settings.density);
      const next = before === 'compact' ? 'spacious' : 'compact';
      const saved = await context.request.put(`${t.url}/api/user/update-user-attributes`, {
        data: { preferences: { theme: { density: next } } },
      });
      expect(saved.ok()).to.equal(true);
      await page.reload();
      await page.waitForFunction((d) => (globalThis as any).document.documentElement.dataset.density === d, next);
      const padding = await page.locator('main').evaluate((el) => (globalThis as any).getComputedStyle(el).paddingTop as string);
      expect(padding, 'the spacing scale follows the density').to.not.equal('24px');
    });

    it('a viewer sees only the pages their role allows', async function () {
      const { page, context } = b;
      await signInWithApi(context, t.url, 'vic@example.com', PASSWORD);
      await page.goto(`${t.url}/admin/`);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const nav = page.getByRole('navigation');
      expect(await nav.getByRole('link', { name: 'Users' }).count()).to.equal(0);
      expect(await nav.getByRole('link', { name: 'System' }).count()).to.equal(0);
      await page.goto(`${t.url}/admin/users`);
      await page.getByText(/Your role does not allow this page/).waitFor();
    });
  });
}

describe('admin UI: a paid widget after its trial', function () {
  this.timeout(60000);
  const b = useBrowser();
  // A function, so that the installation time is taken when the kernel boots (30 days before it).
  const t = useUiKernel(
    () => ({
      config: { plugins: { options: { dashboard: { installedAt: new Date(Date.now() - 30 * 86400_000).toISOString() } } } },
    }),
    {
      users: [{ email: 'ada@example.com', password: PASSWORD, role: 'admin' }],
    },
  );

  it('shows the licence state instead of breaking, and the other widgets keep working', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await context.request.put(`${t.url}/api/dashboard/layout`, {
      data: {
        widgets: [
          { id: 'scim-status', x: 0, y: 0, w: 6, h: 3 },
          { id: 'memory', x: 6, y: 0, w: 6, h: 3 },
        ],
      },
    });
    await page.goto(`${t.url}/admin/`);
    const paid = page.locator('[data-widget="scim-status"]');
    await paid.getByText('Licence required.').waitFor();
    expect(await paid.textContent()).to.include('CMS_LICENSE_KEY');
    expect(await paid.locator('cms-widget-scim-status').count(), 'the element is not mounted').to.equal(0);
    await paid.locator('.badge.bad').waitFor();
    await page.locator('cms-widget-memory .cms-lead').waitFor();
  });
});

/** Text a person sees that would be raw data: JSON braces, UUIDs, ISO timestamps. */
const RAW = [/[{}]/, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/];
const UUID = RAW[1]!;

/** The widget ids of the picker in the order shown, by section. */
async function pickerIds(page: Page): Promise<Array<{ section: string; id: string; text: string }>> {
  return page
    .getByRole('region', { name: 'Available widgets' })
    .locator('[data-picker-widget]')
    .evaluateAll((els) =>
      els.map((e) => ({
        section: e.closest('ul')!.getAttribute('data-section')!,
        id: e.getAttribute('data-picker-widget')!,
        text: (e as any).innerText as string,
      })),
    );
}

describe('admin UI: every dashboard widget in words on a fresh install', function () {
  this.timeout(120000);
  const b = useBrowser();
  let session: string;
  const t = useUiKernel(
    {},
    {
      seed: async () => {
        await createUsers(t, { email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
        session = responseCookie(
          await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } }),
        )!;
        const content = contentAdmin(t);
        await content.collections.create({ name: 'news', fields: [{ name: 'title', type: 'text' }] });
        await content.entries('news').create({ title: 'Harbour reopens' });
      },
    },
  );

  it('a fresh dashboard has no error or licence refusal; the picker offers monitoring and content first, paid last in words, commerce only with its data', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await page.goto(`${t.url}/admin/`);
    const grid = page.getByRole('list', { name: 'Widgets' });
    await grid.locator('cms-widget-system-health .cms-health-status').waitFor();
    await grid.locator('cms-widget-last5-content a').first().waitFor();
    const fresh = await grid.innerText();
    // (Words such as "API errors" in a chart legend are fine; a failed widget shows its message in .cms-widget-error.)
    expect(fresh).to.not.match(/Licence required|HTTP \d{3}|Internal Server Error|LICENSE_REQUIRED|FORBIDDEN/);
    expect(await grid.locator('.cms-widget-error, .alert').count()).to.equal(0);

    await page.getByRole('button', { name: 'Add widget' }).click();
    const picker = page.getByRole('region', { name: 'Available widgets' });
    await picker.locator('[data-section="unavailable"] [data-picker-widget="commerce-orders"]').waitFor();
    const items = await pickerIds(page);
    const sections = [...new Set(items.map((i) => i.section))];
    expect(sections).to.deep.equal(['monitoring', 'content', 'logs', 'paid', 'unavailable']);
    const ids = items.map((i) => i.id);
    expect(ids.slice(0, 3)).to.deep.equal(['cpu', 'memory', 'disk']);
    expect(ids.indexOf('media-storage-analytics')).to.be.below(ids.indexOf('audit-log'));
    // The paid widget comes after every free one, with its trial in words.
    const paid = items.filter((i) => i.section === 'paid');
    expect(paid.map((i) => i.id)).to.deep.equal(['scim-status']);
    expect(paid[0]!.text).to.match(/Paid widget, free during the trial: 14 days left \(until \d+ \w+ \d{4}\)/);
    // Without the orders and products collections the commerce widgets are not offered, and say why.
    const unavailable = items.filter((i) => i.section === 'unavailable');
    expect(unavailable.map((i) => i.id)).to.deep.equal(['commerce-orders', 'commerce-inventory']);
    expect(unavailable[0]!.text).to.include('Not available: needs the orders collection of the commerce preset.');
    expect(unavailable[1]!.text).to.include('Not available: needs the products collection of the commerce preset.');
    expect(await picker.getByRole('button', { name: 'Add Orders' }).count()).to.equal(0);

    // With the commerce preset's collections they are offered among the content widgets.
    await commerceCollections(t);
    await page.reload();
    await page.getByRole('button', { name: 'Add widget' }).click();
    await picker.locator('[data-section="content"] [data-picker-widget="commerce-inventory"]').waitFor();
    const after = await pickerIds(page);
    expect(after.some((i) => i.section === 'unavailable')).to.equal(false);
    await picker.getByRole('button', { name: 'Add Orders' }).waitFor();
  });

  it('the cache monitor says there is no cache traffic instead of an empty donut', async function () {
    const { page, context } = b;
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    await context.request.put(`${t.url}/api/dashboard/layout`, { data: { widgets: [{ id: 'cache-monitor', x: 0, y: 0, w: 6, h: 3 }] } });
    await page.goto(`${t.url}/admin/`);
    const card = page.locator('[data-widget="cache-monitor"]');
    await card.locator('p.muted, svg[role="img"]').first().waitFor();
    // Counters start afresh; the session is now trusted in this process, so the next page reads no cache.
    t.kernel.container.resolve<CacheService>('cache').resetCounters();
    await page.reload();
    await card.getByText('No cache traffic yet.', { exact: true }).waitFor();
    expect(await card.locator('svg').count()).to.equal(0);
    await card.getByText('Details').click();
    await card
      .locator('cms-widget-cache-monitor')
      .getByText(/^No cache traffic yet\./)
      .waitFor();

    // With reads that hit, a hit-rate donut: hits green, misses neutral.
    for (let i = 0; i < 3; i++) await t.request('/api/collections/news', { headers: { cookie: session } });
    const stats = await (await t.request('/api/dashboard/cache-metrics', { headers: { cookie: session } })).json();
    expect(stats.data.overall.hits, 'listing a collection again reads the list cache').to.be.above(0);
    await page.reload();
    const donut = card.locator('svg[role="img"]');
    await donut.waitFor();
    expect(await donut.getAttribute('aria-label')).to.match(/^Cache hit rate: Hits \d+, Misses \d+$/);
    const colours = await card.locator('.swatch').evaluateAll((els) => els.map((e) => (e as any).style.background as string));
    expect(colours).to.deep.equal(['var(--chart-2)', 'var(--chart-neutral, #94a3b8)']);
  });

  it('every widget shows its data in words, links into the admin, and rows end at the right edge', async function () {
    const { page, context } = b;
    // Some data for every widget: orders and products, a picture, a failed sign-in.
    const content = contentAdmin(t);
    const order = (await content.entries('orders').create({
      orderNumber: 'A-1001',
      total: 42.5,
      orderStatus: 'paid',
      customerEmail: 'grace@example.com',
    })) as { _id: string };
    await content.entries('products').create({ title: 'Blue mug', sku: 'MUG-1', price: 9, stock: 2 });
    await content.entries('products').create({ title: 'Red mug', sku: 'MUG-2', price: 9, stock: 0 });
    expect((await uploadFile(t, await imageBytes(32, 24), 'harbour.png', { identity: '', headers: { cookie: session } })).status).to.equal(
      201,
    );
    await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: 'not the password' } });

    await page.setViewportSize({ width: 1920, height: 1080 });
    await signInWithApi(context, t.url, 'ada@example.com', PASSWORD);
    const widgets = (await (await context.request.get(`${t.url}/api/dashboard/widgets`)).json()).data as Array<{
      id: string;
      defaultSize: { w: number; h: number };
    }>;
    expect(widgets.length).to.be.at.least(19);
    const put = await context.request.put(`${t.url}/api/dashboard/layout`, {
      data: { widgets: widgets.map((w, i) => ({ id: w.id, x: 0, y: i, w: w.defaultSize.w, h: w.defaultSize.h })) },
    });
    expect(put.ok()).to.equal(true);
    await page.goto(`${t.url}/admin/`);
    const grid = page.getByRole('list', { name: 'Widgets' });
    await grid
      .locator('[data-widget]')
      .nth(widgets.length - 1)
      .waitFor();

    for (const { id } of widgets) {
      const card = grid.locator(`[data-widget="${id}"]`);
      const details = card.locator('details');
      if (await details.count()) await details.locator('summary').click();
      const element = card.locator(`cms-widget-${id}`);
      await element.locator('h3 + *').waitFor(); // loaded: the title and the view
      expect(await element.locator('.cms-widget-error').count(), `${id}: no error`).to.equal(0);
      // A view, not the fallback's nested lists of figures.
      expect(await element.locator('ol, dl:not(.cms-facts)').count(), `${id}: laid out by its view`).to.equal(0);
      const text = await card.locator('.body').innerText();
      for (const raw of RAW) expect(text, `${id} shows ${raw}`).to.not.match(raw);
      expect(text.trim().length, `${id} says something`).to.be.above(5);
      const overflow = await card.locator('.body').evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow, `${id}: nothing wider than the card`).to.be.at.most(1);
      // Exact times stay reachable as titles of the relative ones.
      for (const title of await element.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('title'))))
        expect(title, `${id}: a time has its exact value as title`).to.match(/\d/);
    }

    const words = async (id: string) => grid.locator(`cms-widget-${id}`).innerText();
    expect(await words('memory')).to.match(/[\d.]+ [KMGT]?B of [\d.]+ [KMGT]?B used \([\d.]+ %\)/);
    expect(await words('cpu')).to.match(/\d+ cores?, .+\n[\s\S]*Load [\d.]+/);
    expect(await words('disk')).to.match(/used \([\d.]+ %\)[\s\S]*free for the data folder/);
    expect(await words('database-pool-diagnostics')).to.match(/^SQLite: reachable, [\d.]+ ms/m);
    expect(await words('audit-log')).to.include('Sign-in failed for ada@example.com: wrong password');
    expect(await words('system-messages')).to.match(/\d+ medium/);
    expect(await words('security')).to.match(/Threat level/);
    expect(await words('security')).to.match(/Failed sign-ins\s+1 in the last 15 min/);
    expect(await words('scim-status')).to.match(/Healthy\s+1 user, 1 active/);
    expect(await words('tenant-analytics')).to.match(/1 user \(1 admin\)/);
    expect(await words('media-storage-analytics')).to.match(/1 file, [\d.]+ [KM]?B in total[\s\S]*PNG image/);
    expect(await words('commerce-inventory')).to.match(/2 products tracked, 1 out of stock/);
    expect(await words('unified-metrics')).to.match(/\d+ requests since (just now|\d+ minutes? ago), [\d.]+ % errors/);
    // Names instead of ids, links into the admin.
    const online = grid.locator('cms-widget-user-online');
    expect(await online.getByRole('link', { name: 'Ada' }).getAttribute('href')).to.equal('/admin/users');
    expect(await online.getByRole('link', { name: 'Ada' }).getAttribute('title')).to.equal('ada@example.com');
    const orderLink = grid.locator('cms-widget-commerce-orders').getByRole('link', { name: 'A-1001' });
    expect(await orderLink.getAttribute('href')).to.equal(`/admin/content/orders/${order._id}`);
    expect(await words('commerce-orders')).to.match(/A-1001\s+Paid\s+42\.50/);
    expect(await grid.locator('cms-widget-media-storage-analytics a').first().getAttribute('href')).to.equal('/admin/media');
    expect(await grid.locator('cms-widget-tenant-analytics').getByRole('link', { name: 'news' }).getAttribute('href')).to.equal(
      '/admin/content/news',
    );
    expect(await page.locator('body').innerText()).to.not.match(UUID);

    // Every row ends at the grid's right edge, and the grid uses the width of a wide screen.
    const gridBox = (await grid.boundingBox())!;
    expect(gridBox.width, 'the grid is not held to the reading width of other pages').to.be.above(1500);
    const boxes = await grid.locator('.cell').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { top: Math.round(r.top), bottom: Math.round(r.bottom), right: Math.round(r.right) };
      }),
    );
    const rows = new Map<number, typeof boxes>();
    for (const box of boxes) rows.set(box.top, [...(rows.get(box.top) ?? []), box]);
    expect(rows.size).to.be.above(3);
    for (const [top, row] of rows) {
      expect(Math.max(...row.map((r) => r.right)), `the row at ${top}px reaches the right edge`).to.be.closeTo(
        Math.round(gridBox.x + gridBox.width),
        2,
      );
      expect(new Set(row.map((r) => r.bottom)).size, `the cells of the row at ${top}px are equally tall`).to.equal(1);
    }
  });
});
