import { Sequelize } from 'sequelize';
import { ValidationError } from '../../kernel/sdk.js';
import { resolvedComponents } from './component-values.js';
import { columnName, isList, type FieldDefinition } from './field-types.js';

/**
 * What a filter condition on a field inside a component compares (`{"seo.title": {"eq": "x"}}`, API
 * decisions "Content model v2"): the value at that path of the component's JSON column, read with
 * json_extract on SQLite and JSON_VALUE on MariaDB, and the field inside whose rules check the operands.
 * Only non-repeatable components are reached into: a path into a repeatable component or blocks is a 400.
 */
export interface ComponentSubject {
  /** The field inside the component (its type and rules check the operands). */
  field: FieldDefinition;
  /** The SQL expression of its value. */
  lhs: ReturnType<typeof Sequelize.fn>;
  /** An operand (checked by the field's schema) as the expression answers it. */
  stored: (value: unknown) => unknown;
}

function invalid(message: string): never {
  throw new ValidationError(`Invalid filter: ${message}`, [{ path: 'query.filter', message }]);
}

const nests = (f: FieldDefinition) => f.type === 'component' || f.type === 'blocks';

/** The subject of `path` (its first segment being the component field `f`, `rest` the fields inside). */
export function componentSubject(f: FieldDefinition, rest: string[], path: string, dialect: string): ComponentSubject {
  let at = f;
  for (const segment of rest) {
    if (at.type === 'blocks' || at.repeatable)
      invalid(
        `'${path}' reaches into the ${at.type === 'blocks' ? 'blocks' : 'repeatable component'} field '${at.name}': only fields of non-repeatable components can be filtered by path`,
      );
    if (at.type !== 'component') invalid(`unknown field '${path}': '${at.name}' is not a component`);
    const inner = resolvedComponents(at)?.[at.component!]?.find((x) => x.name === segment);
    if (!inner) invalid(`unknown field '${path}': the component '${at.component}' has no field '${segment}'`);
    at = inner;
  }
  if (nests(at) || at.type === 'json' || isList(at))
    invalid(`cannot filter by the ${isList(at) ? 'multiple select' : at.type} field '${path}'`);
  // A literal: Sequelize doubles a `$` in a string operand on sqlite. The segments are field names found above
  // (letters and digits), checked again here since they are written into the SQL.
  if (!rest.every((s) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s))) invalid(`unknown field '${path}'`);
  const jsonPath = Sequelize.literal(`'$.${rest.join('.')}'`);
  const lhs = Sequelize.fn(dialect === 'sqlite' ? 'json_extract' : 'JSON_VALUE', Sequelize.col(columnName(f)), jsonPath);
  // json_extract and JSON_VALUE answer a JSON boolean as 1 or 0; every other value as stored in the JSON.
  const stored = (v: unknown) => (typeof v === 'boolean' ? Number(v) : v);
  return { field: at, lhs, stored };
}
