import { Op, type Transaction } from 'sequelize';
import type { CollectionsService } from './collections-service.js';
import { columnName } from './field-types.js';

/**
 * Deleting entries keeps the entries that point at them valid (API decisions, "Content model v2"): every
 * one-relation to a deleted entry is set to null, in the deleting transaction, so no answer ever carries a
 * dangling id. Returns the collections whose entries changed (their cached lists must go after the commit).
 */
export async function detachReferences(
  collections: CollectionsService,
  target: string,
  ids: string[],
  tenantId: string,
  transaction: Transaction,
): Promise<string[]> {
  const changed: string[] = [];
  for (const source of collections.list()) {
    for (const f of source.fields) {
      if (f.type !== 'relation' || f.collection !== target) continue;
      const column = columnName(f);
      const [n] = await source.model.update(
        { [column]: null },
        { where: { tenant_id: tenantId, [column]: { [Op.in]: ids } }, transaction, hooks: false },
      );
      if (n > 0 && !changed.includes(source.name)) changed.push(source.name);
    }
  }
  return changed;
}
