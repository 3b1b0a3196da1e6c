import { Model, type ModelAttributes } from 'sequelize';
import { column } from '../../../kernel/sdk.js';

/** What API keys and website tokens share: a named bearer credential of one user, kept as its SHA-256. */
export abstract class BearerCredential extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string;
  declare name: string;
  declare expires_at: number | null;
  declare last_used_at: number | null;
  declare created_at: number;
}

/** A bearer table's columns in their order: owner and name, the table's own (hash, expiry, permissions), then use. */
export function bearerColumns(own: ModelAttributes): ModelAttributes {
  return {
    id: column.id(),
    tenant_id: column.tenantId(),
    user_id: column.uuid(),
    name: column.string(191),
    ...own,
    last_used_at: column.epochMs({ nullable: true }),
    created_at: column.epochMs(),
  };
}
