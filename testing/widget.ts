import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { match } from 'path-to-regexp';
import type { WidgetDefinition } from '../plugins/dashboard/public.js';
import { DIST_ROOT } from '../kernel/version.js';
import { widgetManifestSchema } from '../plugins/dashboard/widget-manifest.js';
import type { ContractKernel } from './contract-kernel.js';

/** Fixture roles tried, least privileged first, for the identity that may read a widget. */
const READER_ROLES = ['viewer', 'editor'];
type Listed = Record<string, Map<string, { canRead: boolean; permission: string; endpoint: string }>>;

export interface WidgetContractOptions {
  /**
   * A kernel with the dashboard plugin and an identity resolver that turns `x-test-identity` into the roles
   * viewer, editor, nobody (no dashboard permission) and admin: the test-identity fixture plugin does.
   */
  t: ContractKernel;
  /** The widgets under test (e.g. the kernel's widgets registry); read once the kernel has booted. */
  widgets(): WidgetDefinition[];
  /** Where widget folders (`<id>/widget.json`) are; default: the shipped ones. Other widgets are checked as registered. */
  widgetsDir?: string;
}

/**
 * Registers the widget contract's tests in the calling suite: every widget is listed for an admin with its
 * manifest fields; its widget.json is valid (when it comes from a widget folder), its data endpoint is a
 * documented GET route that needs the widget's permission, answers a permitted identity with the envelope
 * {success: true, data} and refuses a signed-in identity without the permission (403) and a guest (401 or
 * 403) with the error envelope. Needs mocha and chai (dev dependencies).
 */
export function widgetContract(options: WidgetContractOptions): void {
  const { t } = options;
  /** GET /api/dashboard/widgets as each fixture role, by widget id. */
  const listed: Listed = {};
  before(async () => {
    for (const role of [...READER_ROLES, 'nobody', 'admin']) {
      const res = await t.request('/api/dashboard/widgets', { identity: role });
      // Without dashboard:read the list itself is refused; then the identity reads no widget.
      listed[role] = new Map(res.status === 200 ? (await res.json()).data.map((w: any) => [w.id, w]) : []);
    }
  });

  it('every registered widget is listed for an admin with its manifest fields', function () {
    for (const w of options.widgets()) {
      const entry = listed.admin!.get(w.id);
      expect(entry, `${w.id} in GET /api/dashboard/widgets`).to.be.an('object');
      expect(entry).to.include({ permission: w.permission, endpoint: w.endpoint, canRead: true });
    }
  });

  // One test over all widgets (the registry is only known once the kernel runs); it lists every problem found.
  it('each widget: valid widget.json, a documented endpoint that answers a permitted identity and refuses the others', async function () {
    const doc = await (await t.request('/api/openapi.json')).json();
    const check: WidgetCheck = {
      t,
      listed,
      doc,
      routes: t.kernel.routes.list(),
      widgetsDir: options.widgetsDir ?? join(DIST_ROOT, 'widgets'),
    };
    const problems: string[] = [];
    for (const w of options.widgets()) {
      const fail = (what: string) => problems.push(`${w.id}: ${what}`);
      try {
        await checkWidget(check, w, fail);
      } catch (err) {
        fail(`threw ${(err as Error).stack}`);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
}

interface WidgetCheck {
  t: ContractKernel;
  listed: Listed;
  widgetsDir: string;
  /** The OpenAPI document and the routes, read once for all widgets. */
  doc: any;
  routes: ReturnType<ContractKernel['kernel']['routes']['list']>;
}

async function checkWidget(check: WidgetCheck, w: WidgetDefinition, fail: (what: string) => void): Promise<void> {
  if (!checkManifest(check.widgetsDir, w, fail)) return;
  // The endpoint: a GET route under /api/ that needs the widget's permission, in the OpenAPI document.
  const { t, listed, doc, routes } = check;
  const endpoint = new URL(w.endpoint, t.url);
  const route = routes.find((r) => r.method === 'GET' && match(r.path, { decode: decodeURIComponent })(endpoint.pathname));
  if (!route) return fail(`no GET route for ${endpoint.pathname}`);
  if (route.permission !== w.permission) fail(`route ${route.path} needs '${route.permission}', the widget says '${w.permission}'`);
  if (!doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.get) fail(`GET ${route.path} is not in the OpenAPI document`);
  const path = `${endpoint.pathname}${endpoint.search}`;

  // A permitted identity gets the data in the envelope.
  const reader = READER_ROLES.find((role) => listed[role]!.get(w.id)?.canRead);
  if (!reader)
    return fail(
      `no fixture role (${READER_ROLES.join(', ')}) may read it: give one '${w.permission}' in test/fixtures/plugins/test-identity`,
    );
  const ok = await t.request(path, { identity: reader });
  const okBody = await ok.text();
  if (ok.status !== 200) return fail(`GET ${path} as ${reader}: ${ok.status} ${okBody.slice(0, 300)}`);
  if (!(ok.headers.get('content-type') ?? '').startsWith('application/json'))
    fail(`GET ${path}: content-type ${ok.headers.get('content-type')}`);
  const envelope = JSON.parse(okBody);
  if (envelope?.success !== true || !('data' in envelope) || envelope.data === null || typeof envelope.data !== 'object') {
    fail(`GET ${path} as ${reader}: not the envelope {success: true, data: {...}}: ${okBody.slice(0, 300)}`);
  }
  await checkRefusals(check, w, path, fail);
}

/** The manifest: widget.json in its folder when the widget comes from one, else the registered definition. False when invalid. */
function checkManifest(widgetsDir: string, w: WidgetDefinition, fail: (what: string) => void): boolean {
  const file = join(widgetsDir, w.id, 'widget.json');
  if (existsSync(file)) {
    const parsed = widgetManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) {
      fail(`invalid ${file}: ${parsed.error.message}`);
      return false;
    }
    if (parsed.data.id !== w.id) fail(`widget.json id ${parsed.data.id} is not the folder name`);
    if (!existsSync(join(widgetsDir, w.id, parsed.data.component))) fail(`component ${parsed.data.component} missing`);
    for (const [key, value] of Object.entries(parsed.data)) {
      if (JSON.stringify((w as unknown as Record<string, unknown>)[key]) !== JSON.stringify(value))
        fail(`registered ${key} differs from widget.json`);
    }
  } else {
    const parsed = widgetManifestSchema
      .partial()
      .required({ id: true, license: true, endpoint: true, permission: true, component: true })
      .safeParse(w);
    if (!parsed.success) {
      fail(`invalid definition: ${parsed.error.message}`);
      return false;
    }
  }
  return true;
}

/** A signed-in identity without the permission, and a guest, are refused with the error envelope. */
async function checkRefusals(check: WidgetCheck, w: WidgetDefinition, path: string, fail: (what: string) => void): Promise<void> {
  for (const [who, identity, statuses, codes] of [
    ['nobody', 'nobody', [403], ['FORBIDDEN']],
    ['a guest', undefined, [401, 403], ['AUTHENTICATION_REQUIRED', 'FORBIDDEN']],
  ] as const) {
    if (identity && check.listed[identity]!.get(w.id)?.canRead) fail(`listed as readable by ${who}`);
    const res = await check.t.request(path, { identity });
    const body = await res.json().catch(() => null);
    if (!(statuses as readonly number[]).includes(res.status))
      fail(`GET ${path} as ${who}: ${res.status}, expected ${statuses.join(' or ')}`);
    else if (body?.success !== false || !(codes as readonly string[]).includes(body.error) || typeof body.message !== 'string') {
      fail(`GET ${path} as ${who}: not the error envelope {success: false, error, message}: ${JSON.stringify(body)}`);
    } else if ('data' in body) fail(`GET ${path} as ${who}: a refusal carries data`);
  }
}
