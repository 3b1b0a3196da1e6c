import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { match } from 'path-to-regexp';
import type { WidgetDefinition } from '../../plugins/dashboard/public.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { widgetManifestSchema } from '../../plugins/dashboard/widget-manifest.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * The contract every registered dashboard widget meets, run against each one: its widget.json is valid
 * (when it comes from a widget folder), its data endpoint is a documented GET route that needs the
 * widget's permission, answers a permitted identity with the envelope {success: true, data} and refuses
 * a signed-in identity without the permission (403) and a guest (401 or 403) with the error envelope.
 * Identities come from the test-identity fixture (x-test-identity: viewer, editor, nobody).
 */
const WIDGETS_DIR = join(DIST_ROOT, 'widgets');
/** Fixture roles tried, least privileged first, for the identity that may read a widget. */
const READER_ROLES = ['viewer', 'editor'];

for (const variant of DB_VARIANTS) {
  describe(`widget contract (${variant.name})`, function () {
    this.timeout(60000);
    let widgets: WidgetDefinition[];
    /** GET /api/dashboard/widgets as each fixture role, by widget id. */
    const listed: Record<string, Map<string, { canRead: boolean; permission: string; endpoint: string }>> = {};

    const t = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      {
        variant,
        seed: async () => {
          widgets = t.kernel.registries.widgets.list() as WidgetDefinition[];
          for (const role of [...READER_ROLES, 'nobody', 'admin']) {
            const res = await t.request('/api/dashboard/widgets', { identity: role });
            // Without dashboard:read the list itself is refused; then the identity reads no widget.
            listed[role] = new Map(res.status === 200 ? (await res.json()).data.map((w: any) => [w.id, w]) : []);
          }
        },
      },
    );

    it('has widgets registered (the shipped widget folders at least)', function () {
      expect(widgets.length).to.be.greaterThan(0);
      expect(widgets.map((w) => w.id)).to.include.members(['cpu', 'logs', 'scim-status']);
    });

    it('every registered widget is listed for an admin with its manifest fields', function () {
      for (const w of widgets) {
        const entry = listed.admin!.get(w.id);
        expect(entry, `${w.id} in GET /api/dashboard/widgets`).to.be.an('object');
        expect(entry).to.include({ permission: w.permission, endpoint: w.endpoint, canRead: true });
      }
    });

    // One test over all widgets (the registry is only known once the kernel runs); it lists every problem found.
    it('each widget: valid widget.json, a documented endpoint that answers a permitted identity and refuses the others', async function () {
      const doc = await (await t.request('/api/openapi.json')).json();
      const routes = t.kernel.routes.list();
      const problems: string[] = [];
      for (const w of widgets) {
        const fail = (what: string) => problems.push(`${w.id}: ${what}`);
        try {
          await checkWidget(w, fail);
        } catch (err) {
          fail(`threw ${(err as Error).stack}`);
        }
      }
      expect(problems, problems.join('\n')).to.deep.equal([]);

      async function checkWidget(w: WidgetDefinition, fail: (what: string) => void): Promise<void> {
        // The manifest: widget.json in its folder when the widget comes from one, else the registered definition.
        const file = join(WIDGETS_DIR, w.id, 'widget.json');
        if (existsSync(file)) {
          const parsed = widgetManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
          if (!parsed.success) return fail(`invalid ${file}: ${parsed.error.message}`);
          if (parsed.data.id !== w.id) fail(`widget.json id ${parsed.data.id} is not the folder name`);
          if (!existsSync(join(WIDGETS_DIR, w.id, parsed.data.component))) fail(`component ${parsed.data.component} missing`);
          for (const [key, value] of Object.entries(parsed.data)) {
            if (JSON.stringify((w as unknown as Record<string, unknown>)[key]) !== JSON.stringify(value))
              fail(`registered ${key} differs from widget.json`);
          }
        } else {
          const parsed = widgetManifestSchema
            .partial()
            .required({ id: true, license: true, endpoint: true, permission: true, component: true })
            .safeParse(w);
          if (!parsed.success) return fail(`invalid definition: ${parsed.error.message}`);
        }

        // The endpoint: a GET route under /api/ that needs the widget's permission, in the OpenAPI document.
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

        // A signed-in identity without the permission, and a guest, are refused with the error envelope.
        for (const [who, identity, statuses, codes] of [
          ['nobody', 'nobody', [403], ['FORBIDDEN']],
          ['a guest', undefined, [401, 403], ['AUTHENTICATION_REQUIRED', 'FORBIDDEN']],
        ] as const) {
          if (identity && listed[identity]!.get(w.id)?.canRead) fail(`listed as readable by ${who}`);
          const res = await t.request(path, { identity });
          const body = await res.json().catch(() => null);
          if (!(statuses as readonly number[]).includes(res.status))
            fail(`GET ${path} as ${who}: ${res.status}, expected ${statuses.join(' or ')}`);
          else if (body?.success !== false || !(codes as readonly string[]).includes(body.error) || typeof body.message !== 'string') {
            fail(`GET ${path} as ${who}: not the error envelope {success: false, error, message}: ${JSON.stringify(body)}`);
          } else if ('data' in body) fail(`GET ${path} as ${who}: a refusal carries data`);
        }
      }
    });
  });
}
