import { BREAK, TypeInfo, isObjectType, visit, visitWithTypeInfo, type DocumentNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { RULE_USER, type Identity } from '../../kernel/sdk.js';

/**
 * Field extension set on every field this plugin builds: its result depends on the caller only through
 * the permission context (tenant, kind, role when admin, permissions), never on who the caller is. A
 * subscription selecting such fields only runs once per event for all subscribers sharing the same
 * document, variables and permission context (subscription-fanout.ts). Fields contributed by other
 * plugins lack it (their resolvers may read the user), and so do built fields a contribution overrides.
 */
export const SHARED_FIELD = 'cmsSharedByPermissionContext';

type MutableField = { extensions: Record<string, unknown> };

export function setShared(field: GraphQLField<unknown, unknown>, shared: boolean): void {
  (field as unknown as MutableField).extensions = { ...field.extensions, [SHARED_FIELD]: shared };
}

/** Marks every field of the schema's object types (called on the built schema, before contributions). */
export function markShared(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) setShared(field as GraphQLField<unknown, unknown>, true);
  }
}

/** Whether every field the document selects (meta fields aside) is marked shared. */
export function selectsSharedOnly(schema: GraphQLSchema, document: DocumentNode): boolean {
  const info = new TypeInfo(schema);
  let shared = true;
  visit(
    document,
    visitWithTypeInfo(info, {
      Field(node) {
        if (node.name.value.startsWith('__')) return undefined;
        if (info.getFieldDef()?.extensions?.[SHARED_FIELD] === true) return undefined;
        shared = false;
        return BREAK;
      },
    }),
  );
  return shared;
}

const keys = new WeakMap<Identity, string>();

/**
 * What the built resolvers read of an identity: tenant, kind (a guest is asked to sign in, others are
 * refused), whether it is an admin (who bypasses permission checks), its permissions, and its role's rules
 * (with the user's id when a rule names `$user`: such subscribers never share a group with another user), and an API
 * key's scope.
 */
export function permissionKey(identity: Identity): string {
  let key = keys.get(identity);
  if (key === undefined) {
    const grants = identity.role === 'admin' ? '*admin' : [...identity.permissions].sort().join(',');
    const rules = identity.role === 'admin' || !identity.rules?.length ? '' : JSON.stringify(identity.rules);
    const user = rules.includes(`"${RULE_USER}"`) ? identity.userId : null;
    const parts: unknown[] = rules ? [identity.tenantId, identity.kind, grants, rules, user] : [identity.tenantId, identity.kind, grants];
    // An API key's scope narrows its content permissions (hasScopedPermission): keys scoped differently never share.
    if (identity.scope?.length) parts.push(identity.scope);
    key = JSON.stringify(parts);
    keys.set(identity, key);
  }
  return key;
}
