import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { signInWithApi, startUiKernel, useBrowser } from '../helpers/browser.js';
import type { TestKernel } from '../helpers/kernel.js';

// axe-core over every admin page: the core pages of admin/src/pages/registry.ts and the plugins' pages
// (GET /api/admin-ui/pages), so a page added later is covered without touching this test; signed in as an
// administrator and as an editor, in the light theme (the built-in defaults) and the dark one (the bundled
// Midnight preset, activated through the themes API); plus the public pages and the main dialogs. It fails listing every serious or critical violation (page, rule, element).
const PASSWORD = 'correct horse battery';
// Evaluated through the DevTools protocol (not a <script> tag, which the admin's CSP rightly refuses).
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MIDNIGHT = readFileSync(join(PROJECT_ROOT, 'themes', 'midnight.json'), 'utf8');

interface Finding {
  where: string;
  rule: string;
  impact: string;
  targets: string[];
  help: string;
}

/** The path patterns of the core pages, read from the page registry's source (the app's own list). */
function corePagePaths(): string[] {
  const source = readFileSync(join(PROJECT_ROOT, 'admin', 'src', 'pages', 'registry.ts'), 'utf8');
  const paths = [...source.matchAll(/\bpath:\s*'(\/admin[^']*)'/g)].map((m) => m[1]!);
  expect(paths, 'core pages found in registry.ts').to.include.members(['/admin', '/admin/content', '/admin/account']);
  return paths;
}

describe('admin UI: accessibility (axe-core, every page, admin and editor, light and dark)', function () {
  this.timeout(300000);
  const b = useBrowser();
  let t: TestKernel;
  let entryId = '';
  const collection = 'a11y_posts';
  const component = 'a11y_cta';

  before(async function () {
    this.timeout(120000);
    t = await startUiKernel();
    const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
    await users.create({ email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
    await users.create({ email: 'eddie@example.com', password: PASSWORD, role: 'editor', username: 'Eddie' });
    const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const post = async (path: string, json: unknown) => {
      const res = await t.request(path, { method: 'POST', headers: { cookie }, json });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).to.be.oneOf([200, 201]);
      return body.data;
    };
    await post('/api/components', { name: component, label: 'Call to action', fields: [{ name: 'label', type: 'text', required: true }] });
    await post('/api/collections', {
      name: `${collection}_people`,
      singular: 'person',
      fields: [{ name: 'name', type: 'text', required: true }],
    });
    await post(`/api/collections/${collection}_people`, { name: 'Ada Lovelace' });
    await post('/api/collections', {
      name: collection,
      label: 'Accessible posts',
      fields: [
        { name: 'title', type: 'text', required: true },
        { name: 'body', type: 'richtext' },
        { name: 'published', type: 'boolean' },
        { name: 'category', type: 'select', options: ['news', 'guide'] },
        { name: 'author', type: 'relation', collection: `${collection}_people` },
      ],
    });
    entryId = (await post(`/api/collections/${collection}`, { title: 'Checked by axe', body: '<p>Hello</p>', category: 'news' }))._id;
    expect(entryId).to.be.a('string');
  });
  after(async () => t?.close());

  const params: Record<string, () => string> = { collection: () => collection, id: () => entryId, name: () => component };
  const concrete = (pattern: string) =>
    pattern.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
      const value = params[name];
      if (!value) throw new Error(`The accessibility test has no value for :${name} of ${pattern}: add one to its params`);
      return value();
    });

  /** Loads axe-core into the page (again after a full load) and returns its serious and critical violations. */
  async function audit(page: Page, where: string): Promise<Finding[]> {
    if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(`${AXE_SOURCE}\n;0`);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: any }).axe;
      const result = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
      return (result.violations as any[]).map((v) => ({
        rule: v.id as string,
        impact: v.impact as string,
        help: v.help as string,
        targets: (v.nodes as any[]).slice(0, 5).map((n) => (n.target as string[]).join(' ')),
      }));
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ where, ...v }));
  }

  /**
   * Opens a path and waits until the page has its heading, nothing is loading any more, the theme is applied
   * (applyTheme sets data-density) and no colour transition is running (axe would measure a colour half-way).
   */
  async function open(page: Page, path: string, themed = true): Promise<void> {
    await page.goto(`${t.url}${path}`);
    await page.locator('h1').first().waitFor();
    await page.waitForFunction((themed) => {
      const doc = (globalThis as any).document;
      return (
        !doc.querySelector('.loading, [aria-busy="true"]') &&
        (!themed || doc.documentElement.dataset.density !== undefined) &&
        !doc.getAnimations().some((a: any) => a.constructor.name === 'CSSTransition' && a.playState === 'running')
      );
    }, themed);
  }

  async function pagesFor(context: BrowserContext): Promise<string[]> {
    const res = await context.request.get(`${t.url}/api/admin-ui/pages`);
    expect(res.status()).to.equal(200);
    const plugin = ((await res.json()) as { data: { pages: Array<{ path: string }> } }).data.pages.map((p) => p.path);
    return [...new Set([...corePagePaths(), ...plugin])].map(concrete);
  }

  /** Every page and the main dialogs for one signed-in user, in the theme that is active. */
  async function auditUser(context: BrowserContext, role: string, scheme: string): Promise<Finding[]> {
    const page = context.pages()[0] ?? (await context.newPage());
    const paths = await pagesFor(context);
    const findings: Finding[] = [];
    for (const path of paths) {
      await open(page, path);
      findings.push(...(await audit(page, `${role}, ${scheme}: ${path}`)));
    }
    // Dashboard in customise mode (the widgets' controls) and its widget picker.
    await open(page, '/admin');
    await page.getByRole('button', { name: 'Customise' }).click();
    const removes = page.getByRole('button', { name: /^Remove / });
    await removes.first().waitFor();
    const names = await removes.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
    expect(names.length, 'Remove buttons in customise mode').to.be.greaterThan(1);
    expect(new Set(names).size, `each Remove button names its widget: ${names.join(', ')}`).to.equal(names.length);
    await page.getByRole('button', { name: 'Add widget' }).click();
    await page.getByRole('region', { name: 'Available widgets' }).waitFor();
    findings.push(...(await audit(page, `${role}, ${scheme}: dashboard (customise, widget picker)`)));
    // An entry's relation picker: its open list of matches, and its dialog creating an entry in place.
    await open(page, `/admin/content/${collection}/${entryId}`);
    const picker = page.locator('[data-field="author"]');
    await picker.getByRole('combobox').click();
    await picker.getByRole('option', { name: /Ada Lovelace/ }).waitFor();
    findings.push(...(await audit(page, `${role}, ${scheme}: relation picker (list of matches)`)));
    await picker.getByRole('button', { name: 'New person for Author' }).click();
    await page.getByRole('dialog', { name: /^New person/ }).waitFor();
    findings.push(...(await audit(page, `${role}, ${scheme}: new related entry dialog`)));
    // The schema page's delete confirmation (admins) and the users page's dialogs.
    if (role === 'admin') {
      await open(page, `/admin/content/${collection}/schema`);
      await page.getByRole('button', { name: /Delete collection/ }).click();
      await page.getByRole('dialog').waitFor();
      findings.push(...(await audit(page, `${role}, ${scheme}: delete collection dialog`)));
      for (const name of ['Create user', 'Invite user']) {
        await open(page, '/admin/users');
        await page.getByRole('button', { name }).click();
        await page.getByRole('dialog', { name }).waitFor();
        findings.push(...(await audit(page, `${role}, ${scheme}: ${name} dialog`)));
      }
    }
    // Leave the entry page: a tab that keeps the entry open makes it read-only for the next user (who is editing).
    await open(page, '/admin');
    return findings;
  }

  /** The public pages, signed out (they show the site's public branding, not the admin theme). */
  async function auditPublic(page: Page, scheme: string): Promise<Finding[]> {
    const findings: Finding[] = [];
    for (const path of [
      '/login',
      '/reset-password?token=not-a-real-token',
      '/register?token=not-a-real-token',
      '/admin/share?id=x&token=y',
    ]) {
      await open(page, path, false);
      findings.push(...(await audit(page, `signed out, ${scheme}: ${path}`)));
    }
    return findings;
  }

  it('finds no serious or critical violation on any admin page, signed in or not, in the light and the dark theme', async () => {
    const findings: Finding[] = [];
    const guest = await b.newContext();
    const guestPage = await guest.newPage();
    await signInWithApi(b.context, t.url, 'ada@example.com', PASSWORD);
    const editor = await b.newContext();
    await signInWithApi(editor, t.url, 'eddie@example.com', PASSWORD);

    for (const scheme of ['light', 'dark']) {
      if (scheme === 'dark') {
        // The bundled dark preset, imported and activated for the whole site as an administrator would.
        const imported = await b.context.request.post(`${t.url}/api/theme/import-preset`, { data: { presetJson: MIDNIGHT } });
        const body = (await imported.json()) as { data: { id: string }; warnings: unknown[] };
        expect(imported.status(), JSON.stringify(body)).to.equal(200);
        expect(body.warnings, 'Midnight passes the theme contrast checks').to.deep.equal([]);
        const activated = await b.context.request.post(`${t.url}/api/theme/activate`, { data: { themeId: body.data.id } });
        expect(activated.status(), await activated.text()).to.equal(200);
      }
      findings.push(...(await auditPublic(guestPage, scheme)));
      findings.push(...(await auditUser(b.context, 'admin', scheme)));
      findings.push(...(await auditUser(editor, 'editor', scheme)));
    }
    // The dark theme really was applied (the page background is Midnight's, not the default light one).
    const page = b.context.pages()[0]!;
    expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).to.equal(
      'rgb(15, 23, 42)',
    );

    const report = findings.map((f) => `${f.where}\n    ${f.impact} ${f.rule} (${f.help}): ${f.targets.join(' | ')}`).join('\n');
    expect(findings, `axe-core found ${findings.length} serious or critical violations:\n${report}`).to.deep.equal([]);
  });
});
