import { generateKeyPairSync, sign } from 'node:crypto';
import type { TestKernel } from './kernel.js';

/** A throw-away Ed25519 key pair: the public half goes to the dashboard's licensePublicKey option. */
export function licenseKeyPair(): { publicKey: string; issue(payload: Record<string, unknown>): string } {
  const pair = generateKeyPairSync('ed25519');
  return {
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    issue(payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${sign(null, Buffer.from(body), pair.privateKey).toString('base64url')}`;
    },
  };
}

export const daysFromNow = (days: number) => new Date(Date.now() + days * 24 * 3600 * 1000).toISOString();

type Entries = {
  createMany(data: Array<Record<string, unknown>>): Promise<unknown[]>;
  create(data: Record<string, unknown>): Promise<unknown>;
};
interface ContentAdmin {
  collections: { create(definition: Record<string, unknown>): Promise<unknown> };
  entries(name: string): Entries;
}

/** The content SDK acting as the system in the default tenant (collections and entries for the figures). */
export function contentAdmin(t: TestKernel): ContentAdmin {
  const factory = t.kernel.container.resolve<(identity: object) => ContentAdmin>('contentClient');
  return factory({ kind: 'user', userId: null, role: 'admin', permissions: [], tenantId: 'default', meta: { system: true } });
}

/** The orders and products collections with the commerce preset's fields (products get lowStockThreshold). */
export async function commerceCollections(t: TestKernel): Promise<void> {
  const content = contentAdmin(t);
  await content.collections.create({
    name: 'products',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'sku', type: 'text' },
      { name: 'price', type: 'number', required: true },
      { name: 'stock', type: 'number', default: 0 },
      { name: 'active', type: 'boolean', default: true },
      { name: 'lowStockThreshold', type: 'number' },
    ],
  });
  await content.collections.create({
    name: 'orders',
    fields: [
      { name: 'orderNumber', type: 'text', required: true },
      { name: 'customerEmail', type: 'text' },
      { name: 'total', type: 'number', required: true },
      {
        name: 'orderStatus',
        type: 'select',
        options: ['pending', 'paid', 'shipped', 'completed', 'cancelled', 'refunded'],
        default: 'pending',
      },
      { name: 'placedAt', type: 'date' },
    ],
  });
}
