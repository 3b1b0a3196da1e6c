import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { z } from 'zod';
import { ValidationError, defineRoute, definePlugin } from '../../kernel/sdk.js';
import type {
  DataDomainDefinition,
  DataOperation,
  DomainContext,
  PlanDraft,
  SafetyMode,
  StoredPlan,
} from '../../plugins/data-ops/public.js';
import { applyBodySchema } from '../../plugins/data-ops/public.js';
import { existsSync } from 'node:fs';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from './kernel.js';

/**
 * A tiny real data domain for the engine's tests: rows {name, value} of the table data_ops_fixture_rows,
 * per tenant. Input `{rows: [{name, value}], failAt?, delayMs?}`: `failAt` (1-based) makes the failAt-th
 * applied operation throw (after the ones before it wrote), `delayMs` makes each operation wait (lock tests),
 * `releaseFile` makes the first operation wait (inside the apply, lock held; at most 60 s) until that file exists,
 * `outside` names rows whose operations are planned with `outsideTransaction: true` (written without the
 * transaction, each returning an Undo).
 * Two domains: `fixture` (transactional, inline below 50 entities) and `fixture-undo` (transactional:
 * false, every apply returns an Undo). Routes under /api/fixture-data/<domain>/{plan,apply,jobs,verify,rows}.
 */
export const FIXTURE_TABLE = 'data_ops_fixture_rows';
export const FIXTURE_THRESHOLD = 50;

const inputSchema = z.object({
  rows: z.array(z.object({ name: z.string().min(1).max(64), value: z.string().max(200) })).max(10_000),
  failAt: z.number().int().min(1).optional(),
  delayMs: z.number().int().min(0).max(10_000).optional(),
  releaseFile: z.string().max(4096).optional(),
  snapshotFails: z.boolean().optional(),
  blocked: z.string().optional(),
  outside: z.array(z.string()).max(100).optional(),
});
export type FixtureInput = z.output<typeof inputSchema>;

interface Row {
  name: string;
  value: string;
}
interface Payload {
  name: string;
  value?: string;
  previous?: string;
  index: number;
}

async function rowsOf(sequelize: Sequelize, tenantId: string, transaction?: Transaction): Promise<Row[]> {
  return sequelize.query<Row>(`SELECT name, value FROM ${FIXTURE_TABLE} WHERE tenant_id = ? ORDER BY name`, {
    replacements: [tenantId],
    type: QueryTypes.SELECT,
    transaction,
  });
}

function fixtureDomain(id: string, transactional: boolean, sequelize: () => Sequelize): DataDomainDefinition<FixtureInput> {
  const write = (sql: string, replacements: unknown[], transaction?: Transaction) => sequelize().query(sql, { replacements, transaction });
  return {
    id,
    auditDomain: 'config',
    modes: ['add', 'merge', 'mirror', 'replace'],
    defaultMode: 'merge',
    inlineThreshold: FIXTURE_THRESHOLD,
    transactional,
    async validate(input) {
      const parsed = inputSchema.safeParse(input ?? { rows: [] });
      if (!parsed.success)
        throw new ValidationError(
          'Invalid fixture input',
          parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        );
      const names = parsed.data.rows.map((r) => r.name);
      if (new Set(names).size !== names.length)
        throw new ValidationError('Row names repeat', [{ path: 'rows', message: 'names must be unique' }]);
      return parsed.data;
    },
    async snapshot(input, ctx) {
      if (input.snapshotFails) throw new Error('snapshot deliberately failing');
      return createHash('sha256')
        .update(JSON.stringify(await rowsOf(sequelize(), ctx.tenantId)))
        .digest('hex');
    },
    async plan(input, mode: SafetyMode, ctx): Promise<PlanDraft> {
      const existing = new Map((await rowsOf(sequelize(), ctx.tenantId)).map((r) => [r.name, r.value]));
      const wanted = new Map(input.rows.map((r) => [r.name, r.value]));
      const ops: DataOperation<Omit<Payload, 'index'>>[] = [];
      if (mode === 'replace') {
        for (const [name, previous] of existing) ops.push({ action: 'delete', type: 'row', target: name, payload: { name, previous } });
        for (const [name, value] of wanted) ops.push({ action: 'create', type: 'row', target: name, payload: { name, value } });
      } else {
        for (const [name, value] of wanted) {
          const before = existing.get(name);
          if (before === undefined) ops.push({ action: 'create', type: 'row', target: name, payload: { name, value } });
          else if (before === value || mode === 'add') ops.push({ action: 'skip', type: 'row', target: name });
          else ops.push({ action: 'update', type: 'row', target: name, payload: { name, value, previous: before } });
        }
        if (mode === 'mirror') {
          for (const [name, previous] of existing)
            if (!wanted.has(name)) ops.push({ action: 'delete', type: 'row', target: name, payload: { name, previous } });
        }
      }
      let index = 0;
      const outside = new Set(input.outside ?? []);
      const operations = ops.map((op) =>
        op.action === 'skip'
          ? op
          : {
              ...op,
              payload: { ...op.payload!, index: ++index },
              ...(outside.has(op.target) ? { outsideTransaction: true as const } : {}),
            },
      );
      return {
        operations,
        warnings: [],
        blockedReasons: input.blocked ? [input.blocked] : [],
        targetHash: createHash('sha256')
          .update(JSON.stringify([...existing]))
          .digest('hex'),
      };
    },
    async apply(op: DataOperation, ctx: DomainContext & { plan: StoredPlan }) {
      const input = ctx.plan.input as FixtureInput;
      const p = op.payload as Payload;
      if (input.delayMs) await new Promise((r) => setTimeout(r, input.delayMs));
      if (input.releaseFile && p.index === 1) {
        const deadline = Date.now() + 60_000;
        while (!existsSync(input.releaseFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      }
      if (input.failAt === p.index) throw new Error(`injected failure at operation ${p.index}`);
      const t = ctx.transaction;
      // An operation run outside the transaction must undo itself like a non-transactional domain's.
      const undoable = !transactional || op.outsideTransaction === true;
      if (op.outsideTransaction && t) throw new Error('an outsideTransaction operation was given the transaction');
      if (op.action === 'create') {
        await write(`INSERT INTO ${FIXTURE_TABLE} (tenant_id, name, value) VALUES (?, ?, ?)`, [ctx.tenantId, p.name, p.value], t);
        return !undoable
          ? undefined
          : () => write(`DELETE FROM ${FIXTURE_TABLE} WHERE tenant_id = ? AND name = ?`, [ctx.tenantId, p.name]).then(() => undefined);
      }
      if (op.action === 'update') {
        await write(`UPDATE ${FIXTURE_TABLE} SET value = ? WHERE tenant_id = ? AND name = ?`, [p.value, ctx.tenantId, p.name], t);
        return !undoable
          ? undefined
          : () =>
              write(`UPDATE ${FIXTURE_TABLE} SET value = ? WHERE tenant_id = ? AND name = ?`, [p.previous, ctx.tenantId, p.name]).then(
                () => undefined,
              );
      }
      await write(`DELETE FROM ${FIXTURE_TABLE} WHERE tenant_id = ? AND name = ?`, [ctx.tenantId, p.name], t);
      return !undoable
        ? undefined
        : () =>
            write(`INSERT INTO ${FIXTURE_TABLE} (tenant_id, name, value) VALUES (?, ?, ?)`, [ctx.tenantId, p.name, p.previous]).then(
              () => undefined,
            );
    },
    async verify(plan, ctx) {
      const now = new Map((await rowsOf(sequelize(), ctx.tenantId)).map((r) => [r.name, r.value]));
      const discrepancies: string[] = [];
      const deleted = new Set<string>();
      for (const op of plan.operationsFull) if (op.action === 'delete') deleted.add(op.target);
      for (const op of plan.operationsFull) {
        const p = op.payload as Payload | undefined;
        if ((op.action === 'create' || op.action === 'update') && now.get(op.target) !== p?.value)
          discrepancies.push(`row '${op.target}' is not '${p?.value}'`);
        if (
          op.action === 'delete' &&
          now.has(op.target) &&
          !plan.operationsFull.some((o) => o.action === 'create' && o.target === op.target)
        )
          discrepancies.push(`row '${op.target}' still exists`);
      }
      return { ok: discrepancies.length === 0, discrepancies };
    },
  };
}

/** The fixture plugin (its folder is written by fixtureDomainPluginDir()). */
export default definePlugin(() => {
  let db: Sequelize | null = null;
  const sequelize = () => {
    if (!db) throw new Error('fixture domain not booted');
    return db;
  };
  const domains = [fixtureDomain('fixture', true, sequelize), fixtureDomain('fixture-undo', false, sequelize)];
  return {
    register({ registries, routes, migrations }) {
      migrations.add({
        name: '0001-fixture-rows',
        async up({ queryInterface, DataTypes }) {
          await queryInterface.createTable(FIXTURE_TABLE, {
            tenant_id: { type: DataTypes.STRING(64), primaryKey: true },
            name: { type: DataTypes.STRING(64), primaryKey: true },
            value: { type: DataTypes.STRING(200), allowNull: false },
          });
        },
      });
      for (const d of domains) registries.dataDomains.add(d);
      const domainParam = z.object({ domain: z.enum(['fixture', 'fixture-undo']) });
      routes.add(
        defineRoute({
          method: 'POST',
          path: '/api/fixture-data/:domain/plan',
          permission: 'authenticated',
          summary: 'fixture: plan',
          request: {
            params: domainParam,
            body: z.object({ mode: z.enum(['add', 'merge', 'mirror', 'replace']).optional() }).passthrough(),
          },
          handler: ({ params, body, identity, scope }) => {
            const { mode, ...input } = body as { mode?: SafetyMode } & Record<string, unknown>;
            return scope.dataOps.plan(params.domain, input, mode, identity);
          },
        }),
      );
      routes.add(
        defineRoute({
          method: 'POST',
          path: '/api/fixture-data/:domain/apply',
          permission: 'authenticated',
          summary: 'fixture: apply',
          request: { params: domainParam, body: applyBodySchema },
          handler: async ({ ctx, params, body, identity, scope }) => {
            const answer = await scope.dataOps.apply(params.domain, body, identity);
            ctx.status = answer.status;
            return answer.data;
          },
        }),
      );
      routes.add(
        defineRoute({
          method: 'GET',
          path: '/api/fixture-data/:domain/jobs',
          permission: 'authenticated',
          summary: 'fixture: jobs',
          request: { params: domainParam, query: z.object({ jobId: z.string().max(64).optional() }) },
          handler: async ({ params, query, identity, scope }) => ({ jobs: await scope.dataOps.jobs(params.domain, identity, query.jobId) }),
        }),
      );
      routes.add(
        defineRoute({
          method: 'POST',
          path: '/api/fixture-data/:domain/verify',
          permission: 'authenticated',
          summary: 'fixture: verify',
          request: { params: domainParam, body: z.object({ planId: z.string() }) },
          handler: ({ params, body, identity, scope }) => scope.dataOps.verify(params.domain, body.planId, identity),
        }),
      );
      routes.add(
        defineRoute({
          method: 'GET',
          path: '/api/fixture-data/rows',
          permission: 'authenticated',
          summary: "fixture: rows of the caller's tenant",
          request: {},
          handler: async ({ identity }) => ({ rows: await rowsOf(sequelize(), identity.tenantId) }),
        }),
      );
    },
    async boot({ container }) {
      db = container.resolve<Sequelize>('sequelize');
    },
  };
});

/** Writes the fixture plugin's folder (plugin.json + an index.js re-exporting this compiled module) and returns it. */
export function fixtureDomainPluginDir(): string {
  const dir = join(tempDir('data-ops-fixture-'), 'data-ops-fixture');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'plugin.json'),
    JSON.stringify(
      {
        id: 'data-ops-fixture',
        name: 'Data-ops fixture domain',
        version: '1.0.0',
        kernel: '^1.0.0',
        phase: 'core',
        requires: ['data-ops'],
        provides: { dataDomains: ['fixture', 'fixture-undo'] },
        namespaces: { 'fixture-data': { GET: 'authenticated', POST: 'authenticated' } },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'index.js'),
    `export { default } from ${JSON.stringify(pathToFileURL(fileURLToPath(new URL('./data-ops-fixture-domain.js', import.meta.url))).href)};\n`,
  );
  return dir;
}

/** A test kernel with the test sign-in plugin and the fixture domain (its folder returned too, for child processes). */
export async function startFixtureDomainKernel(
  options: Omit<Parameters<typeof startTestKernel>[0], 'plugins'>,
): Promise<{ t: TestKernel; pluginDir: string }> {
  const pluginDir = fixtureDomainPluginDir();
  const t = await startTestKernel({ ...options, plugins: [fixturePlugin('test-identity'), pluginDir] });
  return { t, pluginDir };
}
