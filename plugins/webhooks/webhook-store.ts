/**
 * The webhooks of a tenant (table cms_webhooks). The signing secret is stored encrypted (WebhookSecrets)
 * and decrypted only to sign a delivery: answers carry it once, in the answer of the creation.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { WebhookNotFoundError } from './errors.js';
import type { WebhookEvent, WebhookView } from './public.js';
import { newSecret, type WebhookSecrets } from './webhook-secrets.js';

export interface WebhookInput {
  name: string;
  url: string;
  events: WebhookEvent[];
  collections?: string[] | null;
  enabled?: boolean;
}

/** What the enqueueing and the dispatcher read: the view with the tenant (never the secret). */
export interface WebhookTarget extends WebhookView {
  tenantId: string;
}

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: string;
  collections: string | null;
  enabled: number | boolean;
  secret: string;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'id, tenant_id, name, url, events, collections, enabled, secret, created_at, updated_at';
const iso = (ms: number | string) => new Date(Number(ms)).toISOString();
const target = (r: Row): WebhookTarget => ({
  _id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  url: r.url,
  events: JSON.parse(r.events) as WebhookEvent[],
  collections: r.collections === null ? null : (JSON.parse(r.collections) as string[]),
  enabled: Boolean(Number(r.enabled)),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});
/** The API's view: the target without its tenant. */
export const viewOf = ({ tenantId: _tenant, ...view }: WebhookTarget): WebhookView => view;

export class WebhookStore {
  constructor(
    private readonly sequelize: () => Sequelize,
    private readonly secrets: WebhookSecrets,
  ) {}

  private select(where: string, replacements: unknown[]): Promise<Row[]> {
    return this.sequelize().query<Row>(`SELECT ${COLUMNS} FROM cms_webhooks WHERE ${where}`, { replacements, type: QueryTypes.SELECT });
  }

  async list(tenantId: string): Promise<WebhookTarget[]> {
    return (await this.select('tenant_id = ? ORDER BY created_at, id', [tenantId])).map(target);
  }

  /** The enabled webhooks of a tenant (the enqueueing's copy reads them). */
  async enabled(tenantId: string): Promise<WebhookTarget[]> {
    return (await this.list(tenantId)).filter((w) => w.enabled);
  }

  /** The enabled webhooks of every tenant that subscribe to `event`. */
  async subscribers(event: string): Promise<WebhookTarget[]> {
    const rows = await this.select('enabled = 1 AND events LIKE ? ORDER BY tenant_id, created_at, id', [`%${JSON.stringify(event)}%`]);
    return rows.map(target).filter((w) => w.events.includes(event as WebhookEvent));
  }

  private async row(tenantId: string, id: string): Promise<Row> {
    const rows = id.length <= 36 ? await this.select('tenant_id = ? AND id = ?', [tenantId, id]) : [];
    if (!rows[0]) throw new WebhookNotFoundError(id);
    return rows[0];
  }

  async get(tenantId: string, id: string): Promise<WebhookTarget> {
    return target(await this.row(tenantId, id));
  }

  /** The webhook by id alone, with its secret (the dispatcher signs with it); null when deleted. */
  async withSecret(id: string): Promise<(WebhookTarget & { secret: string }) | null> {
    const r = (await this.select('id = ?', [id]))[0];
    return r ? { ...target(r), secret: await this.secrets.decrypt(r.secret, r.id) } : null;
  }

  async create(tenantId: string, input: WebhookInput, createdBy: string | null): Promise<WebhookTarget & { secret: string }> {
    const id = randomUUID();
    const secret = newSecret();
    const now = Date.now();
    await this.sequelize().query(`INSERT INTO cms_webhooks (${COLUMNS}, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, {
      replacements: [
        id,
        tenantId,
        input.name,
        input.url,
        JSON.stringify(input.events),
        input.collections ? JSON.stringify(input.collections) : null,
        input.enabled === false ? 0 : 1,
        await this.secrets.encrypt(secret, id),
        now,
        now,
        createdBy,
      ],
    });
    return { ...(await this.get(tenantId, id)), secret };
  }

  async update(tenantId: string, id: string, input: Partial<WebhookInput>): Promise<WebhookTarget> {
    const current = target(await this.row(tenantId, id));
    const next = { ...current, ...input };
    await this.sequelize().query(
      'UPDATE cms_webhooks SET name = ?, url = ?, events = ?, collections = ?, enabled = ?, updated_at = ? WHERE tenant_id = ? AND id = ?',
      {
        replacements: [
          next.name,
          next.url,
          JSON.stringify(next.events),
          next.collections ? JSON.stringify(next.collections) : null,
          next.enabled ? 1 : 0,
          Date.now(),
          tenantId,
          id,
        ],
      },
    );
    return this.get(tenantId, id);
  }

  /** Deletes the webhook and its deliveries (pending ones are not sent). */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.row(tenantId, id);
    await this.sequelize().query('DELETE FROM cms_webhook_deliveries WHERE webhook_id = ? AND tenant_id = ?', {
      replacements: [id, tenantId],
    });
    await this.sequelize().query('DELETE FROM cms_webhooks WHERE tenant_id = ? AND id = ?', { replacements: [tenantId, id] });
  }
}
