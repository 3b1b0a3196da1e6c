import { literal, type Sequelize } from 'sequelize';

/**
 * `column LIKE '%text%' ESCAPE '!'` with `%`, `_` and `!` in the text matched literally, on SQLite and
 * MariaDB alike (SQLite has no default escape character, so a backslash-escaped `_` never matches).
 * `lower` compares case-insensitively on both engines.
 */
export function likeContains(sequelize: Sequelize, column: string, text: string, lower = false) {
  const escaped = text.replace(/[!%_]/g, (c) => `!${c}`);
  const pattern = sequelize.escape(`%${lower ? escaped.toLowerCase() : escaped}%`);
  const name = sequelize.getQueryInterface().quoteIdentifier(column);
  return literal(`${lower ? `LOWER(${name})` : name} LIKE ${pattern} ESCAPE '!'`);
}
