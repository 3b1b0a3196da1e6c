/**
 * Writes wait for a change of the default locale (locale-default-move.ts): while its row is in content_locale_moves,
 * a write of an entry of a collection with localized fields is 409 CONFLICT (try again when it is done). Without it a
 * write of an entry the move had passed put the old default's values into the row that by then held the new
 * default's. Read inside the write's transaction (SQLite: after the move's own transaction, one writer at a time), so
 * a write either commits before the move starts (and is moved with the rest) or is refused; collections without
 * localized fields are not touched by a move and pay nothing.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError } from '../../kernel/sdk.js';
import type { LoadedCollection } from './collections-service.js';

export class DefaultLocaleMovingError extends ConflictError {
  constructor(p: { from: string; to: string }) {
    super(
      `The default locale is being changed from '${p.from}' to '${p.to}': entries of collections with localized fields cannot be written until it is done; try again in a moment`,
    );
  }
}

/** Refuses the write (409) while the default locale changes, when the collection has localized fields. */
export async function holdForDefaultMove(sequelize: Sequelize, c: LoadedCollection, transaction: Transaction): Promise<void> {
  if (!c.fields.some((f) => f.localized === true)) return;
  const rows = await sequelize.query<{ from_code: string; to_code: string }>('SELECT from_code, to_code FROM content_locale_moves', {
    type: QueryTypes.SELECT,
    transaction,
  });
  const row = rows[0];
  if (row) throw new DefaultLocaleMovingError({ from: row.from_code, to: row.to_code });
}
