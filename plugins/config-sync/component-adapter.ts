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
    updateIssue(current, name) {
      return name === current.name
        ? null
        : `Component '${current.name}' would be renamed to '${name}': components are never renamed (create the new one with the components API)`;
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
