import { expect } from 'chai';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { startTestKernel, useTestKernel, type KernelHooks, type TestKernel, type TestKernelOptions } from './kernel.js';
import type { DbVariant } from './services.js';
import { signInCookie, type NewUser } from './users.js';

/** The password of the users the browser suites create. */
export const PASSWORD = 'correct horse battery';
/** The admin most browser suites sign in as. */
export const ADA: NewUser = { email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' };

/** Debian's chromium, driven by playwright-core (no browser download). */
export const CHROMIUM_PATH = process.env.CMS_TEST_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Where `npm run build` puts the admin UI (dist/admin-ui); the admin-ui plugin serves it from there. */
export const UI_BUILD_DIR = join(DIST_ROOT, 'admin-ui');
export const SCREENSHOT_DIR = join(PROJECT_ROOT, 'test-output', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A full-page screenshot kept as test-output/screenshots/<name>.png, for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** A file name from a test's full title. */
export function screenshotName(title: string): string {
  return `${title
    .replace(/[^a-zA-Z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 150)}.png`;
}

export interface BrowserSession {
  readonly browser: Browser;
  /** A fresh context (cookies, storage) per test. */
  readonly context: BrowserContext;
  readonly page: Page;
  /** Another fresh context in the same test (a second browser user; options such as the browser's locale). */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/**
 * Mocha hooks for browser tests in the calling describe(): one Chromium for the suite, a fresh context
 * and page per test, a full-page screenshot in test-output/screenshots/<test>.png when a test fails.
 */
export function useBrowser(): BrowserSession {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const extra: BrowserContext[] = [];
  before(async function () {
    this.timeout(60000);
    if (!existsSync(CHROMIUM_PATH))
      throw new Error(`Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set CMS_TEST_CHROMIUM)`);
    browser = await launchBrowser();
  });
  beforeEach(async function () {
    context = await browser!.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'UTC' });
    context.setDefaultTimeout(15000);
    page = await context.newPage();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = join(SCREENSHOT_DIR, screenshotName(this.currentTest.fullTitle()));
      await page.screenshot({ path: file, fullPage: true }).then(
        () => console.log(`      screenshot: ${file}`),
        () => undefined,
      );
    }
    for (const c of extra.splice(0)) await c.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
    context = undefined;
    page = undefined;
  });
  after(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      return browser!;
    },
    get context() {
      return context!;
    },
    get page() {
      return page!;
    },
    async newContext(options?: BrowserContextOptions) {
      const c = await browser!.newContext({ viewport: { width: 1280, height: 860 }, ...options });
      extra.push(c);
      return c;
    },
  };
}

/**
 * A real kernel for browser tests, serving the built admin UI on 127.0.0.1 (a free port). Fails with
 * a clear message when the UI has not been built (npm run build).
 */
export async function startUiKernel(options: TestKernelOptions = {}): Promise<TestKernel> {
  if (!existsSync(join(UI_BUILD_DIR, 'index.html'))) {
    throw new Error(
      `The admin UI is not built at ${UI_BUILD_DIR}: run npm run build (vite build --config admin/vite.config.js --outDir dist/admin-ui)`,
    );
  }
  return startTestKernel({
    ...options,
    config: {
      ...options.config,
      plugins: { ...options.config?.plugins, options: { auth: { bcryptRounds: 4 }, ...options.config?.plugins?.options } },
    },
  });
}

/** useTestKernel with startUiKernel: a suite's kernel serving the built admin UI. */
export function useUiKernel(options: TestKernelOptions | (() => TestKernelOptions) = {}, hooks: KernelHooks = {}): TestKernel {
  return useTestKernel(options, hooks, startUiKernel);
}

/**
 * Kernel options of an instance set up as an operator would: the setup plugin on (it holds SITE_NAME),
 * its administrator `email` with PASSWORD, and `config` besides.
 */
export function setUpBy(email: string, config: TestKernelOptions['config'] = {}): TestKernelOptions {
  return { setup: true, config: { ...config, plugins: { options: { setup: { admin: { email, password: PASSWORD } } } } } };
}

/** Signs in through the API inside the browser context (sets its session cookie). */
export async function signInWithApi(context: BrowserContext, baseUrl: string, email: string, password: string): Promise<void> {
  const res = await context.request.post(`${baseUrl}/api/user/login`, { data: { email, password } });
  if (!res.ok()) throw new Error(`sign-in failed: ${res.status()} ${await res.text()}`);
}

/**
 * The usual opening of an admin UI suite: one Chromium (useBrowser) and a kernel serving the built UI
 * (useUiKernel) on the variant's database, with Ada (an admin) and then `hooks.users`.
 */
export function useAdminUi(
  variant?: DbVariant,
  hooks: Omit<KernelHooks, 'variant'> = {},
  options: TestKernelOptions = {},
): { b: BrowserSession; t: TestKernel } {
  const b = useBrowser();
  const t = useUiKernel(variant ? { db: variant.name, ...options } : options, {
    ...hooks,
    ...(variant ? { variant } : {}),
    users: [ADA, ...(hooks.users ?? [])],
  });
  return { b, t };
}

/**
 * useAdminUi with Ada's API session for the test's own calls: `session.cookie` (set before each test) and
 * `apiGet(path)`, the `data` of a GET as Ada.
 */
export function useAdminUiAsAda(variant: DbVariant): {
  b: BrowserSession;
  t: TestKernel;
  session: { cookie: string };
  /** Each test reads its own shape. */
  apiGet: (path: string) => Promise<any>;
  /** A POST as Ada that must answer 201: its `data`. */
  apiCreate: (path: string, json: unknown) => Promise<any>;
} {
  const session = { cookie: '' };
  const ui = useAdminUi(variant, {
    seed: async () => {
      session.cookie = (await signInCookie(ui.t, ADA.email, PASSWORD))!;
    },
  });
  const apiGet = async (path: string) => (await (await ui.t.request(path, { headers: { cookie: session.cookie } })).json()).data;
  const apiCreate = async (path: string, json: unknown) => {
    const res = await ui.t.request(path, { method: 'POST', headers: { cookie: session.cookie }, json });
    expect(res.status, await res.clone().text()).to.equal(201);
    return (await res.json()).data;
  };
  return { ...ui, session, apiGet, apiCreate };
}

/** Signs the session's browser in as Ada (or `email`) and opens /admin/<path>, waiting for its level-1 heading when named. */
export async function openAdminPage(b: BrowserSession, t: TestKernel, path: string, heading?: string, email = ADA.email): Promise<Page> {
  await signInWithApi(b.context, t.url, email, PASSWORD);
  await b.page.goto(`${t.url}/admin/${path}`);
  if (heading !== undefined) await b.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  return b.page;
}

/**
 * useUiKernel with another instance (a child process) started at the same time and stopped after the
 * suite: `startOther` starts it and resolves to the function that stops it.
 */
export function useUiKernelBeside(
  options: TestKernelOptions,
  hooks: KernelHooks,
  startOther: () => Promise<() => Promise<unknown>>,
): TestKernel {
  let stopOther: (() => Promise<unknown>) | undefined;
  const t = useTestKernel(options, hooks, async (o) => {
    const [kernel, stop] = await Promise.all([startUiKernel(o), startOther()]);
    stopOther = stop;
    return kernel;
  });
  after(async () => stopOther?.());
  return t;
}
