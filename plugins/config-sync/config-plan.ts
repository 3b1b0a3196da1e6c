/**
 * The plan of the `config` domain: the files (or an uploaded bundle) matched to the database, the
 * warnings and blocked reasons of the match, and the operations of the mode (planFromDiff of data-ops,
 * collections in relation order, schema operations outside the transaction). No mutation.
 */
import { creationOrder, relationTargets } from '../content/public.js';
import { planFromDiff, type DataDiff, type DataOperation, type DiffItem, type PlanDraft, type SafetyMode } from '../data-ops/public.js';
import { matchFiles, samePair } from './identity-links.js';
import { RESOURCE_TYPES, type DbResource, type ResourceType } from './resources.js';
import { roleChanges } from './role-rules.js';
import type { ConfigInput, ConfigPayload, ConfigSyncCore, FileSource, Pair, SyncFile } from './sync-types.js';

/** Prefix of a one-collection read grant (content plugin's public access): `content:read:<collection>`. */
const COLLECTION_READ = 'content:read:';

type Warnings = PlanDraft['warnings'];
const itemKey = (type: string, name: string) => `${type}:${name}`;
const mappingHint = (f: SyncFile) => `"mappings": {"${f.file}": "<${f.type} name>" | null}`;

const fromFile = (f: SyncFile, db?: DbResource): ConfigPayload => ({
  uuid: f.uuid,
  name: f.name,
  externalId: f.externalId ?? null,
  checksum: f.checksum,
  data: f.data,
  ...(db ? { dbName: db.name, dbUuid: db.uuid, dbId: db.id } : {}),
});
const fromDb = (d: DbResource): ConfigPayload => ({ uuid: d.uuid ?? '', name: d.name, dbName: d.name, dbUuid: d.uuid, dbId: d.id });

/** Hand-edited files, and roles naming permissions this instance does not know. */
async function fileWarnings(
  core: ConfigSyncCore,
  tenantId: string,
  { files, label }: FileSource,
  knownPermissions: Set<string>,
  warnings: Warnings,
): Promise<void> {
  // The read grant of one collection (`content:read:<collection>`, what the Public access switch of a collection
  // writes into the guest role) is known when the collection is in this database or arrives with these files.
  let collections: Set<string> | null = null;
  const isCollectionRead = async (permission: string) => {
    if (!permission.startsWith(COLLECTION_READ)) return false;
    collections ??= new Set([
      ...files.filter((f) => f.type === 'collection').map((f) => f.name),
      ...(await core.readDatabase(tenantId, ['collection'])).map((d) => d.name),
    ]);
    return collections.has(permission.slice(COLLECTION_READ.length));
  };
  for (const f of files) {
    if (f.unsealed)
      warnings.push({ message: `${label}${f.file} was edited by hand (no checksum): review its changes`, item: itemKey(f.type, f.name) });
    if (f.type === 'role') {
      const unknown: string[] = [];
      for (const p of f.data.permissions as string[]) if (!knownPermissions.has(p) && !(await isCollectionRead(p))) unknown.push(p);
      if (unknown.length)
        warnings.push({
          message: `Role '${f.name}' names permissions this instance does not know: ${unknown.join(', ')}`,
          item: itemKey('role', f.name),
        });
    }
  }
}

/** Files with several candidates (blocked until mapped), and names a create or a rename would take from another resource. */
function matchProblems(pairs: Pair[], label: string, warnings: Warnings, blockedReasons: string[]): void {
  for (const p of pairs) {
    if (!p.file || !p.candidates) continue;
    const list = p.candidates.map((c) => `'${c.db.name}' (by ${c.level})`).join(', ');
    warnings.push({
      message: `${label}${p.file.file} matches several ${p.file.type}s: ${list}; give a mapping (${mappingHint(p.file)}; null = new)`,
      item: itemKey(p.file.type, p.file.name),
    });
    blockedReasons.push(`${label}${p.file.file}: several database candidates (${list}): needs a mapping`);
  }
  // e.g. a resource matched by syncId renamed onto another.
  for (const p of pairs) {
    if (!p.file || p.candidates || (p.db && p.file.name === p.db.name)) continue;
    const clash = pairs.find((o) => o !== p && o.db && o.db.type === p.file!.type && o.db.name === p.file!.name);
    if (!clash) continue;
    if (p.db)
      blockedReasons.push(
        `${label}${p.file.file}: renames the ${p.db.type} '${p.db.name}' to '${p.file.name}', which another ${p.db.type} has: needs a mapping (${mappingHint(p.file)})`,
      );
    else
      blockedReasons.push(
        `${label}${p.file.file}: creates the ${p.file.type} '${p.file.name}', which another ${p.file.type} has: needs a mapping (${mappingHint(p.file)})`,
      );
  }
}

/** A role's payloads carry what they change: its permissions and rules added and removed (shown in the plan). */
function withRoleChanges(item: DiffItem<ConfigPayload>, p: Pair): void {
  if (item.create) item.create = { ...item.create, changes: roleChanges(undefined, p.file?.data) };
  if (item.update) item.update = { ...item.update, changes: roleChanges(p.db?.data, p.file?.data) };
  if (item.remove) item.remove = { ...item.remove, changes: roleChanges(p.db?.data, undefined) };
}

/** The matched pairs as the diff of planFromDiff, in pair order. */
function diffOf(core: ConfigSyncCore, pairs: Pair[], mode: SafetyMode, label: string): DataDiff<ConfigPayload> {
  const diff: DataDiff<ConfigPayload> = { onlyInSource: [], onlyInTarget: [], differs: [], same: [], order: [] };
  for (const p of pairs) {
    const type = (p.file ?? p.db)!.type;
    const adapter = core.adapters[type];
    const common = { type, name: (p.file ?? p.db)!.name, readOnlyReason: adapter.readOnlyReason, inPlace: !!adapter.outsideTransaction };
    let item: DiffItem<ConfigPayload>;
    if (p.file && p.db) {
      const issue =
        mode === 'add' || adapter.readOnlyReason !== null ? null : (adapter.updateIssue?.(p.db, p.file.name, p.file.data) ?? null);
      item = {
        ...common,
        targetName: p.db.name,
        create: fromFile(p.file),
        update: fromFile(p.file, p.db),
        remove: fromDb(p.db),
        protectedReason: p.db.protectedReason,
        updateIssue: issue === null ? null : `${label}${p.file.file}: ${issue}`,
      };
      (samePair(p) ? diff.same : diff.differs).push(item);
    } else if (p.file) diff.onlyInSource.push((item = { ...common, create: fromFile(p.file) }));
    else diff.onlyInTarget.push((item = { ...common, remove: fromDb(p.db!), protectedReason: p.db!.protectedReason }));
    if (type === 'role') withRoleChanges(item, p);
    diff.order!.push(item);
  }
  return diff;
}

/** Collections created in one plan: a collection whose relation field targets another created one comes after it. */
function relationOrder(creates: DataOperation<ConfigPayload>[]): void {
  const collections = creates.filter((o) => o.type === 'collection');
  const byName = new Map(collections.map((o) => [o.payload!.name, o]));
  if (collections.length < 2 || byName.size !== collections.length) return;
  const fieldsOf = (o: DataOperation<ConfigPayload>) => (o.payload!.data?.fields as Array<{ type?: string; collection?: string }>) ?? [];
  const order = creationOrder(
    new Map(collections.map((o) => [o.payload!.name, relationTargets(fieldsOf(o)).filter((n) => n !== o.payload!.name)])),
  );
  creates.splice(creates.indexOf(collections[0]!), collections.length, ...order.map((n) => byName.get(n)!));
}

/** Diffs the files against the database in a mode; no mutation. */
export async function planConfig(
  core: ConfigSyncCore,
  tenantId: string,
  input: ConfigInput,
  mode: SafetyMode,
  knownPermissions: Set<string>,
): Promise<Omit<PlanDraft, 'targetHash'>> {
  const source = await core.sources.source(tenantId, input);
  const db = await core.readDatabase(tenantId, input.types);
  const { pairs, duplicates } = matchFiles(source.files, db, await core.identity.links(tenantId, input.types), input.mappings);
  const blockedReasons = [...source.problems.map((p) => `${source.label}${p.file}: ${p.problem}`), ...duplicates];
  const warnings: Warnings = [];
  await fileWarnings(core, tenantId, source, knownPermissions, warnings);
  matchProblems(pairs, source.label, warnings, blockedReasons);
  const planned = planFromDiff(diffOf(core, pairs, mode, source.label), mode, {
    typeOrder: RESOURCE_TYPES,
    orderCreates: relationOrder,
    skipPayload: (item) => ({ uuid: '', name: item.name }),
    messages: { updateBlocked: (_item, issue) => issue },
  });
  // DDL operations run before the engine's transaction (and are undone by the opposite change on failure).
  for (const op of planned.operations) {
    if (op.action !== 'skip' && core.adapters[op.type as ResourceType]?.outsideTransaction) op.outsideTransaction = true;
    // The plan shows what a role operation changes (skipped operations change nothing).
    const changes = (op.payload as ConfigPayload | undefined)?.changes;
    if (op.action !== 'skip' && changes) op.changes = changes;
  }
  return {
    operations: planned.operations,
    warnings: [...warnings, ...planned.warnings],
    blockedReasons: [...blockedReasons, ...planned.blockedReasons],
  };
}
