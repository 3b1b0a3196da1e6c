import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { firstDifference } from '../helpers/first-difference.js';

const GENERATOR = join(PROJECT_ROOT, 'scripts', 'gen-admin-api-types.mjs');
const GENERATED = join(PROJECT_ROOT, 'admin', 'src', 'lib', 'api-types.gen.ts');

interface Generator {
  schemaToTs(schema: unknown): string;
  renderApiTypes(routes: unknown[], document: unknown): string;
}

describe('admin UI API types (scripts/gen-admin-api-types.mjs)', function () {
  let gen: Generator;
  before(async function () {
    gen = (await import(pathToFileURL(GENERATOR).href)) as Generator;
  });

  it('the committed admin/src/lib/api-types.gen.ts is what the route declarations generate now', async function () {
    this.timeout(120_000);
    const { stdout } = await promisify(execFile)(process.execPath, [GENERATOR, '--stdout'], {
      cwd: PROJECT_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    const committed = readFileSync(GENERATED, 'utf8');
    expect(
      stdout === committed,
      `api-types.gen.ts is stale: run \`node scripts/gen-admin-api-types.mjs\` after tsc (${firstDifference(stdout, committed)})`,
    ).to.equal(true);
    // The map holds the routes the built-in pages call, with their request and response types.
    expect(committed).to.include("'GET /api/collections/:collection': {");
    expect(committed).to.match(/'GET \/api\/collections\/:collection': \{\s+params: \{ collection: string \};/);
  });

  it('turns the JSON Schema the route schemas produce into TypeScript', function () {
    const ts = (schema: unknown) => gen.schemaToTs(schema);
    expect(ts({ type: 'string' })).to.equal('string');
    expect(ts({ type: 'integer', minimum: 1 })).to.equal('number');
    expect(ts({ type: ['string', 'null'] })).to.equal('string | null');
    expect(ts({ type: 'string', enum: ['draft', 'published'] })).to.equal('"draft" | "published"');
    expect(ts({ type: 'boolean', const: true })).to.equal('true');
    expect(ts({ $ref: '#/components/schemas/Entry' })).to.equal('ApiSchemas["Entry"]');
    expect(ts({})).to.equal('unknown');
    expect(ts({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } })).to.equal('(string | number)[]');
    expect(ts({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] })).to.equal('[string, number]');
    expect(ts({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'boolean' } })).to.equal(
      'Record<string, boolean>',
    );
    expect(
      ts({
        type: 'object',
        properties: { id: { type: 'string' }, 'x-y': { type: 'number', description: 'a */ b' } },
        required: ['id'],
        additionalProperties: false,
      }),
    ).to.equal('{\nid: string;\n/** a *\\/ b */\n"x-y"?: number;\n}');
    expect(ts({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: {} })).to.equal(
      '{ a: string; [key: string]: unknown; }',
    );
    expect(ts({ allOf: [{ $ref: '#/components/schemas/A' }, { type: 'object', properties: {}, additionalProperties: false }] })).to.equal(
      'ApiSchemas["A"] & Record<string, never>',
    );
    expect(() => ts({ $ref: 'https://example.com/schema.json' })).to.throw(/Unsupported \$ref/);
  });

  it('keys routes by "METHOD /path", types their parts and lists the routes without the envelope', function () {
    const data = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false };
    const document = {
      paths: {
        '/api/things/{thingId}': {
          patch: {
            parameters: [
              { in: 'path', name: 'thingId', required: true, schema: { type: 'string' } },
              { in: 'query', name: 'page', schema: { type: 'integer' } },
            ],
            requestBody: { content: { 'application/json': { schema: data } } },
            responses: {
              '200': {
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { success: { const: true }, data }, required: ['success', 'data'] },
                  },
                },
              },
            },
          },
        },
        '/api/raw': { get: { responses: { '200': { content: { 'application/json': { schema: data } } } } } },
        '/admin': { get: { responses: {} } },
      },
      components: { schemas: {} },
      'x-error-catalogue': [{ code: 'NOT_FOUND' }, { code: 'CONFLICT' }],
    };
    const routes = [
      {
        method: 'PATCH',
        path: '/api/things/:thingId',
        permission: 'x:write',
        summary: 'Changes a thing',
        response: {},
        errors: ['NOT_FOUND'],
      },
      { method: 'GET', path: '/api/raw', permission: 'public', summary: 'Raw', envelope: false, response: {} },
      { method: 'GET', path: '/admin', permission: 'public', summary: 'A page', envelope: false },
    ];
    const text = gen.renderApiTypes(routes, document);
    expect(text).to.include('export type ApiErrorCode = "CONFLICT" | "NOT_FOUND";');
    expect(text).to.include(
      '"PATCH /api/things/:thingId": {params: { thingId: string; };query: { page?: number; };body: { n: number; };response: { n: number; };errors: "NOT_FOUND";};',
    );
    expect(text).to.include('"GET /api/raw": {params: never;query: never;body: never;response: { n: number; };errors: ApiErrorCode;};');
    expect(text).not.to.include('/admin"');
    expect(text).to.include('new Set<keyof ApiRoutes>(["GET /api/raw"])');
  });

  it('the built-in pages call the API only through the typed remote functions (named exceptions only)', function () {
    // Untyped by nature, each for a stated reason: a widget's endpoint comes from the widgets registry
    // (any plugin's route); the importer's progress is a server-sent event stream, not a JSON answer.
    const allowed = new Map([
      ['dashboard/WidgetChart.svelte', 'the endpoint is a widget definition from the registry'],
      ['pages/importers/sse.ts', 'reads a text/event-stream'],
      ['pages/media/SharePage.svelte', "reads a password-protected shared file's bytes (its preview) as a blob"],
    ]);
    const src = join(PROJECT_ROOT, 'admin', 'src');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter(
      (f) => /\.(svelte|ts)$/.test(f) && f !== 'lib/api.ts' && f !== 'lib/remote.ts',
    );
    expect(files.length).to.be.greaterThan(50);
    const untyped = /\bapi\s*\.\s*(get|post|put|patch|del)\b|\b(request|upload)(<|\()|\bfetch\(/;
    const offenders = files.filter((f) => untyped.test(readFileSync(join(src, f), 'utf8')) && !allowed.has(f.split('\\').join('/')));
    expect(offenders, 'pages calling the untyped client: use remote() from admin/src/lib/remote.ts').to.deep.equal([]);
  });
});
