// Writes admin/src/lib/api-types.gen.ts: the admin UI's typed map of every REST route, keyed by
// "METHOD /path", with the request (params, query, body) and response types and the error codes.
// Source: the route declarations of the built-in plugins (registered as the kernel does, without a
// database, a server or any I/O beyond reading manifests and entry modules), turned into JSON Schema
// by the same code path as GET /api/openapi.json (kernel/http/openapi.ts), then into TypeScript.
//
// Runs after `tsc` and `node scripts/copy-assets.mjs` (it loads dist/): part of `npm run build`.
//   node scripts/gen-admin-api-types.mjs            write the file
//   node scripts/gen-admin-api-types.mjs --stdout   print it instead (the drift test compares)
//   node scripts/gen-admin-api-types.mjs --check    exit 1 when the file differs from a fresh generation
//   node scripts/gen-admin-api-types.mjs --openapi  print the OpenAPI document itself (GET /api/openapi.json), as JSON
// The output is deterministic: routes and schemas are sorted, and Prettier formats it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const OUTPUT = join(root, 'admin/src/lib/api-types.gen.ts');

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const REF = /^#\/components\/schemas\/(.+)$/;

const key = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const literal = (value) => JSON.stringify(value);
const comment = (text) =>
  `/** ${String(text)
    .replace(/\*\//g, '*\\/')
    .replace(/\s*\n\s*/g, ' ')} */\n`;
/** An object type; one member a line when one has a doc comment (so the comment stays with its member). */
const block = (members) => (members.some((m) => m.startsWith('/**')) ? `{\n${members.join('\n')}\n}` : `{ ${members.join(' ')} }`);
/** A type that needs parentheses before `[]` (unions, intersections, functions). */
const wrap = (ts) => (/^[\w$.'"[\]<>]+$/.test(ts) || /^\{[\s\S]*\}$/.test(ts) ? ts : `(${ts})`);

function union(types) {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length ? unique.join(' | ') : 'never';
}

/**
 * TypeScript for a JSON Schema (2020-12 as zod v4 and zod-openapi write it): the subset the route
 * schemas use. $ref to #/components/schemas/X becomes ApiSchemas['X']; validation-only keywords
 * (minLength, pattern, format, ...) do not change the type; `description` becomes a doc comment.
 */
export function schemaToTs(schema) {
  if (schema === true || schema === undefined || schema === null) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object') throw new Error(`Not a JSON Schema: ${JSON.stringify(schema)}`);
  if (schema.$ref) {
    const m = REF.exec(schema.$ref);
    if (!m) throw new Error(`Unsupported $ref ${schema.$ref} (only #/components/schemas/<name>)`);
    return `ApiSchemas[${literal(m[1])}]`;
  }
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  const parts = [];
  if (Array.isArray(schema.anyOf)) parts.push(union(schema.anyOf.map(schemaToTs)));
  if (Array.isArray(schema.oneOf)) parts.push(union(schema.oneOf.map(schemaToTs)));
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map(schemaToTs));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length && (schema.properties || schema.additionalProperties !== undefined)) types.push('object');
  if (!types.length && (schema.items || schema.prefixItems)) types.push('array');
  // `type: object` beside a union of object shapes adds nothing.
  const bareObject = types.length === 1 && types[0] === 'object' && !schema.properties && schema.additionalProperties === undefined;
  if (types.length && !(bareObject && parts.length)) parts.push(union(types.map((t) => typeOf(t, schema))));
  if (!parts.length) return 'unknown';
  return parts.length === 1 ? parts[0] : parts.map((p) => (p.includes('|') ? `(${p})` : p)).join(' & ');
}

function typeOf(type, schema) {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (Array.isArray(schema.prefixItems)) {
        const items = schema.prefixItems.map(schemaToTs);
        const rest = schema.items === false || schema.items === undefined ? [] : [`...${wrap(schemaToTs(schema.items))}[]`];
        return `[${[...items, ...rest].join(', ')}]`;
      }
      return `${wrap(schemaToTs(schema.items))}[]`;
    case 'object':
      return objectType(schema);
    default:
      throw new Error(`Unsupported JSON Schema type ${JSON.stringify(type)}`);
  }
}

function objectType(schema) {
  const required = new Set(schema.required ?? []);
  const members = Object.keys(schema.properties ?? {}).map((name) => {
    const prop = schema.properties[name];
    const doc = prop && typeof prop === 'object' && prop.description ? comment(prop.description) : '';
    return `${doc}${key(name)}${required.has(name) ? '' : '?'}: ${schemaToTs(prop)};`;
  });
  const extra = schema.additionalProperties;
  // Absent additionalProperties: JSON Schema allows any other key; zod writes `false` for a strict
  // object, so absence only happens on a record-like or free-form object.
  if (extra === false) return members.length ? block(members) : 'Record<string, never>';
  const value = extra === undefined || extra === true ? 'unknown' : schemaToTs(extra);
  if (!members.length) return `Record<string, ${value}>`;
  if (value === 'unknown') return block([...members, '[key: string]: unknown;']);
  return `${block(members)} & Record<string, ${value}>`;
}

/** "GET /api/collections/:collection" for an operation of the document. */
const routeKey = (method, path) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;

function parametersType(parameters, where) {
  const list = (parameters ?? []).filter((p) => p.in === where).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!list.length) return 'never';
  const members = list.map((p) => {
    const doc = p.description ? comment(p.description) : '';
    return `${doc}${key(p.name)}${p.required || where === 'path' ? '' : '?'}: ${schemaToTs(p.schema)};`;
  });
  return block(members);
}

function bodyType(requestBody) {
  const content = requestBody?.content;
  if (!content) return 'never';
  if (content['application/json']) return schemaToTs(content['application/json'].schema);
  if (content['multipart/form-data']) return 'FormData';
  return 'unknown';
}

const successSchema = (route, operation) => operation.responses?.[String(route.status ?? 200)]?.content?.['application/json']?.schema;

/**
 * Whether the answer is the envelope {success: true, data}: every route but those with `envelope: false`,
 * and those too when their declared body is that envelope (a route that writes the envelope itself).
 */
function enveloped(route, operation) {
  if (route.envelope !== false) return true;
  const props = successSchema(route, operation)?.properties;
  return props?.success?.const === true && 'data' in props;
}

function responseType(route, operation) {
  if (!route.response) return 'unknown';
  const schema = successSchema(route, operation);
  // The envelope: remote() resolves to `data`; otherwise to the whole body.
  return schemaToTs(enveloped(route, operation) ? schema?.properties?.data : schema);
}

/** The generated module's text (unformatted) from the registered routes and their OpenAPI document. */
export function renderApiTypes(routes, document) {
  const byKey = new Map();
  for (const route of routes) {
    if (!route.path.startsWith('/api/')) continue; // pages, /files/ and the admin assets are not API calls
    const openApiPath = route.path.replace(/:(\w+)/g, '{$1}');
    const operation = document.paths?.[openApiPath]?.[route.method.toLowerCase()];
    if (!operation) throw new Error(`The OpenAPI document has no operation for ${route.method} ${route.path}`);
    byKey.set(routeKey(route.method, openApiPath), { route, operation });
  }
  const keys = [...byKey.keys()].sort();
  const catalogue = [...(document['x-error-catalogue'] ?? [])].map((e) => e.code).sort();
  const schemas = document.components?.schemas ?? {};
  const lines = [
    '// GENERATED by scripts/gen-admin-api-types.mjs from the route declarations (the code path of GET',
    '// /api/openapi.json). Do not edit: change the route, build (tsc), then run `node scripts/gen-admin-api-types.mjs`.',
    '// test/unit/admin-api-types.test.ts fails when this file differs from a fresh generation.',
    '/* eslint-disable */',
    '',
    '/** Every stable error code of the kernel and the built-in plugins (the error catalogue). */',
    `export type ApiErrorCode = ${union(catalogue.map(literal))};`,
    '',
    '/** The named schemas of the OpenAPI document (components.schemas). */',
    'export interface ApiSchemas {',
    ...Object.keys(schemas)
      .sort()
      .map((name) => `${key(name)}: ${schemaToTs(schemas[name])};`),
    '}',
    '',
    '/**',
    ' * Each route by "METHOD /path": params (path), query and body as the client sends them, the',
    ' * response (`data` of the success envelope, or the whole body for a route without the envelope;',
    ' * unknown when the route declares no response schema), `answer` (the whole success body, for a route',
    ' * that writes its envelope itself with more beside `data`), and the error codes it may answer with.',
    ' */',
    'export interface ApiRoutes {',
  ];
  for (const k of keys) {
    const { route, operation } = byKey.get(k);
    const errors = Array.isArray(route.errors) && route.errors.length ? union([...route.errors].sort().map(literal)) : 'ApiErrorCode';
    lines.push(
      comment(`${route.summary} (permission: ${route.permission})`) +
        `${literal(k)}: {` +
        `params: ${parametersType(operation.parameters, 'path')};` +
        `query: ${parametersType(operation.parameters, 'query')};` +
        `body: ${bodyType(operation.requestBody)};` +
        `response: ${responseType(route, operation)};` +
        // A route that writes its envelope itself may put more beside `data` (e.g. warnings): the whole body.
        (route.envelope === false && route.response && enveloped(route, operation)
          ? `answer: ${schemaToTs(successSchema(route, operation))};`
          : '') +
        `errors: ${errors};` +
        `};`,
    );
  }
  lines.push('}', '');
  const raw = keys.filter((k) => !enveloped(byKey.get(k).route, byKey.get(k).operation));
  lines.push(
    '/** Routes that answer without the {success, data} envelope: remote() resolves to their whole body. */',
    `export const UNENVELOPED_ROUTES: ReadonlySet<keyof ApiRoutes> = new Set<keyof ApiRoutes>([${raw.map(literal).join(', ')}]);`,
    '',
  );
  return lines.join('\n');
}

/** Registers the built-in plugins as the kernel does (no database, no server); hands the routes and OpenAPI document to `use`. */
async function withRouteDocument(use) {
  const dist = pathToFileURL(join(root, 'dist/')).href;
  const [{ loadConfig }, { createKernel, KERNEL_VERSION }, { buildOpenApi }, { createLogger }, prettier] = await Promise.all([
    import(`${dist}kernel/config.js`),
    import(`${dist}kernel/index.js`),
    import(`${dist}kernel/http/openapi.js`),
    import(`${dist}kernel/logger.js`),
    import('prettier'),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-api-types-'));
  try {
    const config = loadConfig({
      ignoreFile: true,
      env: {},
      overrides: { dataDir, logLevel: 'silent', db: { type: 'sqlite', storage: 'unused.sqlite' }, plugins: { paths: [] } },
    });
    const kernel = createKernel({ config, env: {}, logger: createLogger('silent') });
    if (typeof kernel.registerKernelServices !== 'function' || typeof kernel.registerPlugins !== 'function') {
      throw new Error('Kernel.registerKernelServices/registerPlugins are gone: update scripts/gen-admin-api-types.mjs');
    }
    kernel.registerKernelServices();
    await kernel.registerPlugins();
    const document = buildOpenApi(kernel.routes.list(), kernel.namespaces, KERNEL_VERSION);
    await kernel.sequelize.close();
    return await use(kernel.routes.list(), document, prettier);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The OpenAPI document of the built-in plugins, as GET /api/openapi.json serves it. */
export async function generateOpenApi() {
  return withRouteDocument((_routes, document) => document);
}

/** Renders admin/src/lib/api-types.gen.ts from the built-in plugins' route declarations. */
export async function generateApiTypes() {
  return withRouteDocument(async (routes, document, prettier) => {
    const text = renderApiTypes(routes, document);
    const options = (await prettier.resolveConfig(OUTPUT)) ?? {};
    return prettier.format(text, { ...options, filepath: OUTPUT });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--openapi')) {
  process.stdout.write(`${JSON.stringify(await generateOpenApi(), null, 2)}\n`);
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await generateApiTypes();
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else if (process.argv.includes('--check')) {
    if (!existsSync(OUTPUT) || readFileSync(OUTPUT, 'utf8') !== text) {
      console.error(`${OUTPUT.slice(root.length)} is out of date: run node scripts/gen-admin-api-types.mjs (after tsc) and commit it`);
      process.exitCode = 1;
    }
  } else {
    writeFileSync(OUTPUT, text);
    console.log(`wrote ${OUTPUT.slice(root.length)}`);
  }
}
