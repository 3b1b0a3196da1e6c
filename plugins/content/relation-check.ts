import { Op, type Transaction } from 'sequelize';
import { ValidationError } from '../../kernel/sdk.js';
import type { CollectionsService, LoadedCollection } from './collections-service.js';
import type { CheckedInput } from './entry-input.js';
import { isManyRelation } from './field-types.js';

/** Relation values must name an entry of the target collection in the same tenant: a 400 naming each that does not. */
export async function checkRelations(
  collections: CollectionsService,
  c: LoadedCollection,
  input: CheckedInput,
  tenantId: string,
  prefix: string,
  transaction?: Transaction,
): Promise<void> {
  const issues: Array<{ path: string; message: string }> = [];
  for (const f of c.fields) {
    const v = input.values[f.name];
    const ids = typeof v === 'string' ? [v] : isManyRelation(f) && Array.isArray(v) ? (v as string[]) : [];
    if (f.type !== 'relation' || !ids.length) continue;
    const target = await collections.get(f.collection!);
    // One query per field, whatever the number of ids (a many-relation holds at most MANY_MAX).
    const rows = (await target.model.findAll({
      attributes: ['id'],
      where: { id: { [Op.in]: ids }, tenant_id: tenantId },
      transaction,
      raw: true,
    })) as unknown as Array<{ id: string }>;
    const found = new Set(rows.map((r) => r.id));
    ids.forEach((id, i) => {
      if (!found.has(id))
        issues.push({ path: `${prefix}.${f.name}${isManyRelation(f) ? `.${i}` : ''}`, message: `no entry ${id} in ${f.collection}` });
    });
  }
  if (issues.length) throw new ValidationError(`Invalid relation: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}
