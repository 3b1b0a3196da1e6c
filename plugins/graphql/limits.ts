import {
  Kind,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';

/** Field nesting of an operation, through fragments; introspection fields (__schema, __type, __typename) count 0. */
export function depthOf(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  // Validation has already refused fragment cycles; the memo keeps fragment-heavy documents linear.
  const memo = new Map<string, number>();
  const walk = (set: SelectionSetNode, seen: Set<string>): number => {
    let max = 0;
    for (const s of set.selections) {
      let d = 0;
      if (s.kind === Kind.FIELD) d = s.name.value.startsWith('__') ? 0 : 1 + (s.selectionSet ? walk(s.selectionSet, seen) : 0);
      else if (s.kind === Kind.INLINE_FRAGMENT) d = walk(s.selectionSet, seen);
      else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        if (memo.has(name)) d = memo.get(name)!;
        else if (fragment && !seen.has(name)) {
          seen.add(name);
          d = walk(fragment.selectionSet, seen);
          seen.delete(name);
          memo.set(name, d);
        }
      }
      if (d > max) max = d;
    }
    return max;
  };
  return walk(operation.selectionSet, new Set());
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const effectiveLimit = (limit: unknown) =>
  typeof limit === 'number' && Number.isInteger(limit) ? Math.min(Math.max(limit, 1), MAX_LIMIT) : DEFAULT_LIMIT;

/**
 * The cost model: a list query costs 1 + limit x (1 + what each item selects); a root field (query,
 * mutation, subscription) or a field that loads data (a relation's entry) costs 1 + its selection;
 * other fields (scalars, plain objects) cost what they select, so scalars cost nothing.
 */
function estimator(schema: GraphQLSchema): ComplexityEstimator {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  return ({ type, field, args, childComplexity }) => {
    const cost = field.extensions?.cost;
    if (cost === 'list') return 1 + effectiveLimit(args.limit) * (1 + childComplexity);
    if (cost === 'io' || (isObjectType(type) && roots.has(type))) return 1 + childComplexity;
    return childComplexity;
  };
}

/** The estimated cost of the operation (throws a GraphQLError for bad variables or a document over 10,000 nodes). */
export function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): number {
  return getComplexity({ schema, query: document, operationName, variables, estimators: [estimator(schema)] });
}
