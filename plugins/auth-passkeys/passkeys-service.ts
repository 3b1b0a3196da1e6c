import { randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { PasskeyNotFoundError } from './errors.js';
import { Passkey } from './models/passkey.js';
import { modelsOf, type ModelMap } from '../../kernel/sdk.js';

const iso = (ms: number | string | null) => (ms == null ? null : new Date(Number(ms)).toISOString());

export interface PublicPasskey {
  _id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  deviceType: string;
  backedUp: boolean;
}

export const toPublicPasskey = (p: Passkey): PublicPasskey => ({
  _id: p.id,
  name: p.name,
  createdAt: iso(p.created_at)!,
  lastUsedAt: iso(p.last_used_at),
  deviceType: p.device_type,
  backedUp: Boolean(p.backed_up),
});

export const transportsOf = (p: Passkey): string[] => {
  try {
    const list = JSON.parse(p.transports);
    return Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
};

export interface NewPasskey {
  tenantId: string;
  userId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  name: string;
}

/** The passkeys table: a user's own passkeys, and the lookup by credential id at sign-in. */
export class PasskeysService {
  private readonly models: { Passkey: typeof Passkey };

  constructor(models: ModelMap) {
    this.models = modelsOf(models, { Passkey });
  }

  listForUser(userId: string): Promise<Passkey[]> {
    return this.models.Passkey.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC']] });
  }

  findByCredentialId(credentialId: string, tenantId: string): Promise<Passkey | null> {
    return this.models.Passkey.findOne({ where: { credential_id: credentialId, tenant_id: tenantId } });
  }

  async add(input: NewPasskey): Promise<Passkey> {
    return this.models.Passkey.create({
      id: randomUUID(),
      tenant_id: input.tenantId,
      user_id: input.userId,
      credential_id: input.credentialId,
      public_key: input.publicKey,
      counter: input.counter,
      transports: JSON.stringify(input.transports),
      device_type: input.deviceType,
      backed_up: input.backedUp,
      name: input.name,
      created_at: Date.now(),
      last_used_at: null,
    });
  }

  private async own(id: string, userId: string): Promise<Passkey> {
    const row = await this.models.Passkey.findOne({ where: { id, user_id: userId } });
    if (!row) throw new PasskeyNotFoundError();
    return row;
  }

  async rename(id: string, userId: string, name: string): Promise<Passkey> {
    const row = await this.own(id, userId);
    await row.update({ name });
    return row;
  }

  async remove(id: string, userId: string): Promise<void> {
    if (!(await this.models.Passkey.destroy({ where: { id, user_id: userId } }))) throw new PasskeyNotFoundError();
  }

  /** After a verified sign-in: the new counter (never lowered by a racing older one) and the time. */
  async recordUse(row: Passkey, counter: number, backedUp: boolean): Promise<void> {
    await this.models.Passkey.update(
      { counter, backed_up: backedUp, last_used_at: Date.now() },
      { where: { id: row.id, counter: { [Op.lte]: counter } } },
    );
  }

  /** A passkey whose user no longer exists (deleted): it can never sign in again. */
  async removeOrphan(id: string): Promise<void> {
    await this.models.Passkey.destroy({ where: { id } });
  }
}
