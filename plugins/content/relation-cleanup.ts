import { Op, type Transaction } from 'sequelize';
import type { CollectionsService } from './collections-service.js';
import { columnName, isManyRelation } from './field-types.js';

/** Rows rewritten per statement when many-relations drop deleted ids. */
const CHUNK = 500;

/**
 * Deleting entries keeps the entries that point at them valid (API decisions, "Content model v2"): every
 * one-relation to a deleted entry is set to null and every many-relation drops it, in the deleting
 * transaction, so no answer ever carries a dangling id. Returns the collections whose entries changed
 * (their cached lists must go after the commit).
 */
export async function detachReferences(
  collections: CollectionsService,
  target: string,
  ids: string[],
  tenantId: string,
  transaction: Transaction,
): Promise<string[]> {
  const changed = new Set<string>();
  for (const source of collections.list()) {
    for (const f of source.fields) {
      if (f.type !== 'relation' || f.collection !== target) continue;
      const column = columnName(f);
      if (!isManyRelation(f)) {
        const [n] = await source.model.update(
          { [column]: null },
          { where: { tenant_id: tenantId, [column]: { [Op.in]: ids } }, transaction, hooks: false },
        );
        if (n > 0) changed.add(source.name);
        continue;
      }
      // A many-relation is a JSON list of ids: the rows that hold one of them (an id is a UUID, so its quoted
      // form matches only itself), rewritten without them.
      const gone = new Set(ids);
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = (await source.model.findAll({
          attributes: ['id', column],
          where: { tenant_id: tenantId, [Op.or]: ids.slice(i, i + CHUNK).map((id) => ({ [column]: { [Op.like]: `%"${id}"%` } })) },
          transaction,
          raw: true,
        })) as unknown as Array<Record<string, unknown>>;
        for (const r of rows) {
          const kept = (JSON.parse(String(r[column])) as string[]).filter((id) => !gone.has(id));
          await source.model.update({ [column]: JSON.stringify(kept) }, { where: { id: r.id }, transaction, hooks: false });
          changed.add(source.name);
        }
      }
    }
  }
  return [...changed];
}
