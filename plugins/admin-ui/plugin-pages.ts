import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  ADMIN_NAV_GROUPS,
  NotFoundError,
  hasPermission,
  type Identity,
  type AdminPageDefinition,
  type Registries,
} from '../../kernel/sdk.js';

/** One page of a plugin as the admin UI receives it (GET /api/admin-ui/pages). */
export const adminPageView = z
  .object({
    pluginId: z.string(),
    path: z.string(),
    title: z.string(),
    icon: z.string().nullable(),
    nav: z.union([z.literal(false), z.object({ label: z.string(), order: z.number(), group: z.enum(ADMIN_NAV_GROUPS) })]),
    permission: z.string().nullable(),
    module: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('bundled'), name: z.string() }),
      z.object({ kind: z.literal('url'), url: z.string() }),
    ]),
  })
  .meta({ id: 'AdminPage' });
export type AdminPageView = z.infer<typeof adminPageView>;

/** Whether the identity may see the page: any signed-in identity when it names no permission. */
export function maySee(identity: Identity, page: AdminPageDefinition): boolean {
  if (identity.kind === 'guest') return false;
  return (
    !page.permission || page.permission === 'authenticated' || page.permission === 'public' || hasPermission(identity, page.permission)
  );
}

/** The pages of enabled plugins the identity may see, in sidebar order: by group, then order, then path (pages without a link last). */
export function visiblePages(registries: Registries, identity: Identity): AdminPageView[] {
  const group = (p: AdminPageDefinition) => (p.nav ? ADMIN_NAV_GROUPS.indexOf(p.nav.group) : ADMIN_NAV_GROUPS.length);
  const order = (p: AdminPageDefinition) => (p.nav ? p.nav.order : Number.MAX_SAFE_INTEGER);
  return registries.adminPages
    .list()
    .filter((p) => maySee(identity, p))
    .sort((a, b) => group(a) - group(b) || order(a) - order(b) || a.path.localeCompare(b.path))
    .map((p) => ({
      pluginId: p.pluginId,
      path: p.path,
      title: p.title,
      icon: p.icon ?? null,
      nav: p.nav,
      permission: p.permission ?? null,
      module: p.module.kind === 'bundled' ? { kind: 'bundled' as const, name: p.module.name } : { kind: 'url' as const, url: p.module.url },
    }));
}

/**
 * Sends a module file a plugin declared in its manifest. The file is looked up among the registry's
 * entries (plugin id and declared relative path, compared as strings): a path built from the request
 * never reaches the file system, so `..` or an undeclared file is simply not found.
 */
export async function sendPluginPageModule(
  ctx: Context,
  registries: Registries,
  identity: Identity,
  pluginId: string,
  relative: string,
): Promise<void> {
  const page = registries.adminPages
    .list()
    .find((p) => p.pluginId === pluginId && p.module.kind === 'file' && p.module.relative === relative && maySee(identity, p));
  if (!page || page.module.kind !== 'file') throw new NotFoundError(`No admin page module '${relative}' of plugin '${pluginId}'`);
  let body: Buffer;
  try {
    body = await readFile(page.module.file);
  } catch {
    throw new NotFoundError(`The admin page module '${relative}' of plugin '${pluginId}' is missing`);
  }
  // no-cache: the browser revalidates with the ETag the kernel adds to every GET 200.
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.body = body;
}
