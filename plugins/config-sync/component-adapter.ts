/**
 * Components as configuration (issue 35: "components are configuration"): one resource per component
 * ({label, fields}), promoted before collections (whose component and blocks fields need them). Written
 * through the content plugin's components service, which checks nesting and announces the change to every
 * instance; it keeps its own rows (no transaction of ours), so the operations run outside the apply
 * transaction and are undone by the opposite change, as collection schemas are. Never renamed; never
 * deleted while a collection or another component uses it.
 */
import type { ComponentsService, FieldDefinition } from '../content/public.js';
import type { DbResource, ResourceAdapter } from './resources.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function componentAdapter(components: () => ComponentsService | undefined): ResourceAdapter {
  const service = (): ComponentsService => {
    const found = components();
    if (!found) throw new Error('The content plugin has no components service');
    return found;
  };
  const dataOf = (data: Record<string, unknown>) => ({ label: String(data.label), fields: data.fields as FieldDefinition[] });
  return {
    type: 'component',
    label: 'Components',
    readOnlyReason: null,
    outsideTransaction: true,
    available: () => components() !== undefined,
    async read() {
      const list = [...(await service().fresh()).values()];
      return list.map((c): DbResource => {
        const users = service().usersOf(c.name);
        return {
          type: 'component',
          name: c.name,
          uuid: null,
          id: c.name,
          data: { label: c.label, fields: c.fields as unknown },
          protectedReason: users.length ? `it is used by ${users.join(', ')}` : null,
        };
      });
    },
    check(data) {
      if (!isObject(data) || typeof data.label !== 'string' || !Array.isArray(data.fields)) return 'data must be {label, fields[]}';
      if (!data.fields.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string'))
        return 'data.fields must be field definitions {name, type, ...}';
      return null;
    },
    updateIssue(current, name, data) {
      if (name !== current.name)
        return `Component '${current.name}' would be renamed to '${name}': components are never renamed (create the new one with the components API)`;
      // Promotion never drops data: a component in use keeps its fields and their types (change them with the
      // components API, whose plan shows what each entry would lose).
      if (!current.protectedReason) return null;
      const before = new Map(((current.data.fields as FieldDefinition[]) ?? []).map((f) => [f.name, f]));
      const after = Array.isArray(data.fields) ? (data.fields as FieldDefinition[]) : [];
      const prefix = `Component '${current.name}' (${current.protectedReason})`;
      for (const f of after) {
        const was = before.get(f.name);
        if (
          was &&
          (was.type !== f.type || (was.collection ?? null) !== (f.collection ?? null) || (was.component ?? null) !== (f.component ?? null))
        )
          return `${prefix}: field '${f.name}' would change its type or target, which could drop stored values: change it with the components API (PATCH /api/components/${current.name}, after its plan)`;
      }
      const removed = [...before.keys()].filter((n) => !after.some((f) => f.name === n));
      if (removed.length)
        return `${prefix}: the file removes the field(s) ${removed.join(', ')}, which would drop their values in entries: remove fields with the components API (after its plan)`;
      return null;
    },
    async create(_tenantId, name, _uuid, data) {
      return (await service().create({ name, ...dataOf(data) })).name;
    },
    async update(_tenantId, current, _name, data) {
      return (await service().update(current.name, dataOf(data))).name;
    },
    async remove(_tenantId, current) {
      await service().remove(current.name);
    },
    async invalidate() {
      // The components service reloads its definitions and announces the change itself.
    },
  };
}
