import { expect } from 'chai';
import { AppError } from '../../kernel/errors.js';
import type { Identity } from '../../kernel/http/identity.js';
import type { Logger } from '../../kernel/logger.js';
import type { Registries } from '../../kernel/registries/index.js';
import type { DataDomainDefinition, DataOpsEngine, DomainContext, PlanDraft } from '../../plugins/data-ops/public.js';
import { fixtureDomainPluginDir } from '../helpers/data-ops-fixture-domain.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

/**
 * The data-operation domain contract, against every domain registered in a default kernel (the built-in
 * domain plugins) plus the engine tests' fixture domains. Inputs tried: `{}` (and for the fixture, a
 * valid one). A domain may refuse an input with a 4xx CmsError from validate(); it must never answer
 * otherwise (5xx, a plain Error). Planning changes nothing (snapshot before == after); a plan with no
 * operations applies as a no-op.
 */
const ADMIN: Identity = { kind: 'user', userId: 'contract-admin', role: 'admin', permissions: [], tenantId: 'default' };
const MODES = ['add', 'merge', 'mirror', 'replace'];
const AUDIT_DOMAINS = ['config', 'content-package', 'migration', 'importer', 'backup', 'content-sync'];
/** Inputs a domain is tried with, besides `{}`. */
const EXTRA_INPUTS: Record<string, unknown[]> = {
  fixture: [{ rows: [] }, { rows: [{ name: 'contract', value: '1' }] }],
  'fixture-undo': [{ rows: [] }],
};

describe('data-operation domain contract', function () {
  this.timeout(60000);
  let domains: DataDomainDefinition[] = [];

  const t = useTestKernel(() => ({ plugins: [fixturePlugin('test-identity'), fixtureDomainPluginDir()] }), {
    seed: async () => {
      domains = t.kernel.container.resolve<Registries>('registries').dataDomains.list() as unknown as DataDomainDefinition[];
    },
  });

  const context = (): DomainContext => ({
    tenantId: ADMIN.tenantId,
    actor: { userId: ADMIN.userId, tenantId: ADMIN.tenantId },
    identity: ADMIN,
    logger: t.kernel.container.resolve<Logger>('logger'),
  });

  /**
   * Every domain with each input it is tried with (`{}` and its EXTRA_INPUTS) that its validate()
   * accepts, labelled for the problems list; `refused` hears of the inputs validate() throws on.
   */
  async function* validatedInputs(refused: (label: string, err: unknown) => void = () => undefined) {
    for (const d of domains) {
      for (const raw of [{}, ...(EXTRA_INPUTS[d.id] ?? [])]) {
        const label = `${d.id} ${JSON.stringify(raw)}`;
        let input: unknown;
        try {
          input = await d.validate(raw, context());
        } catch (err) {
          refused(label, err);
          continue;
        }
        yield { d, raw, label, input };
      }
    }
  }

  it('finds the registered domains (the fixture ones at least)', () => {
    expect(domains.map((d) => d.id)).to.include.members(['fixture', 'fixture-undo']);
  });

  it('every domain declares its modes, default mode, audit domain and threshold consistently', () => {
    const problems: string[] = [];
    for (const d of domains) {
      if (!d.modes.length || !d.modes.every((m) => MODES.includes(m))) problems.push(`${d.id}: modes ${JSON.stringify(d.modes)}`);
      if (!d.modes.includes(d.defaultMode)) problems.push(`${d.id}: defaultMode '${d.defaultMode}' is not one of its modes`);
      if (!AUDIT_DOMAINS.includes(d.auditDomain)) problems.push(`${d.id}: auditDomain '${d.auditDomain}'`);
      if (!(d.inlineThreshold > 0)) problems.push(`${d.id}: inlineThreshold ${d.inlineThreshold} (a positive number or Infinity)`);
      if (d.transactional !== undefined && typeof d.transactional !== 'boolean') problems.push(`${d.id}: transactional`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('validate refuses bad input with a 4xx error or returns; plan returns a PlanDraft and changes nothing (snapshot equal before and after)', async () => {
    const problems: string[] = [];
    const refused = (label: string, err: unknown) => {
      if (!(err instanceof AppError) || err.status < 400 || err.status >= 500)
        problems.push(`${label}: validate threw ${String(err)} (not a 4xx CmsError)`);
    };
    for await (const { d, label, input } of validatedInputs(refused)) {
      for (const mode of d.modes) {
        const before = await d.snapshot(input, context()).catch(() => null);
        let draft: PlanDraft;
        try {
          draft = await d.plan(input, mode, context());
        } catch (err) {
          if (!(err instanceof AppError && err.status < 500)) problems.push(`${label} ${mode}: plan threw ${String(err)}`);
          continue;
        }
        const after = await d.snapshot(input, context()).catch(() => null);
        if (before !== after) problems.push(`${label} ${mode}: the snapshot changed during plan (${before} -> ${after})`);
        if (typeof before !== 'string' && before !== null) problems.push(`${label}: snapshot is not a string`);
        if (
          !Array.isArray(draft?.operations) ||
          !Array.isArray(draft.warnings) ||
          !Array.isArray(draft.blockedReasons) ||
          typeof draft.targetHash !== 'string'
        ) {
          problems.push(`${label} ${mode}: not a PlanDraft: ${JSON.stringify(draft)?.slice(0, 300)}`);
          continue;
        }
        for (const op of draft.operations) {
          if (!['create', 'update', 'delete', 'skip'].includes(op.action) || typeof op.type !== 'string' || typeof op.target !== 'string')
            problems.push(`${label} ${mode}: bad operation ${JSON.stringify(op).slice(0, 200)}`);
          if (op.count !== undefined && !(Number.isInteger(op.count) && op.count >= 0))
            problems.push(`${label} ${mode}: bad count on ${op.target}`);
          if (mode === 'add' && (op.action === 'update' || op.action === 'delete'))
            problems.push(`${label}: mode add plans a ${op.action} of ${op.target}`);
          if (mode === 'merge' && op.action === 'delete') problems.push(`${label}: mode merge plans a delete of ${op.target}`);
        }
        for (const w of draft.warnings) if (typeof w?.message !== 'string') problems.push(`${label} ${mode}: a warning without message`);
        if (draft.risk !== undefined && !['safe', 'warning', 'destructive'].includes(draft.risk))
          problems.push(`${label} ${mode}: risk ${draft.risk}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('through the engine: a plan with no operations applies as a no-op (success, nothing changed)', async () => {
    const engine = t.kernel.container.resolve<DataOpsEngine>('dataOps');
    const problems: string[] = [];
    let tried = 0;
    for await (const { d, raw, label, input } of validatedInputs()) {
      const plan = await engine.plan(d.id, raw, d.defaultMode, ADMIN).catch((err) => err as Error);
      if (plan instanceof Error) {
        if (!(plan instanceof AppError && plan.status < 500)) problems.push(`${label}: engine plan threw ${String(plan)}`);
        continue;
      }
      if (plan.operations.some((op) => op.action !== 'skip') || plan.blockedReasons.length) continue;
      tried++;
      const before = await d.snapshot(input, context()).catch(() => null);
      const answer = await engine
        .apply(d.id, { planId: plan.planId, confirmed: true, planHash: plan.planHash }, ADMIN)
        .catch((err) => err as Error);
      if (answer instanceof Error) {
        problems.push(`${label}: apply of an empty plan threw ${String(answer)}`);
        continue;
      }
      if (answer.status !== 200 || answer.data.outcome !== 'success')
        problems.push(`${label}: apply of an empty plan answered ${JSON.stringify(answer)}`);
      const after = await d.snapshot(input, context()).catch(() => null);
      if (before !== after) problems.push(`${label}: apply of an empty plan changed the target`);
    }
    expect(tried, 'no domain produced an empty plan').to.be.greaterThan(0);
    expect(problems).to.deep.equal([]);
  });
});
