import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';
import type { WidgetDefinition } from './public.js';

/** widget.json of a widget folder. */
export const widgetManifestSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  name: z.string().min(1).max(100),
  description: z.string().min(1).max(500),
  icon: z.string().min(1).max(64),
  version: z.string().regex(/^\d+\.\d+\.\d+/),
  license: z.enum(['freemium', 'paid']),
  component: z.string().regex(/^[a-zA-Z0-9_-]+\.js$/),
  defaultSize: z.strictObject({ w: z.number().int().min(1).max(12), h: z.number().int().min(1).max(12) }),
  category: z.enum(['monitoring', 'logs', 'content', 'static']),
  endpoint: z.string().regex(/^\/api\/[a-zA-Z0-9/_?=&.,-]+$/),
  permission: z.string().regex(/^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$/),
});

/**
 * Reads and validates every `<dir>/<id>/widget.json`: the id must equal the folder name and the
 * component file must exist. A bad manifest stops the boot naming the file.
 */
export function loadWidgetFolders(dir: string): WidgetDefinition[] {
  if (!existsSync(dir)) return [];
  const widgets: WidgetDefinition[] = [];
  for (const name of readdirSync(dir).sort()) {
    const folder = join(dir, name);
    if (!statSync(folder).isDirectory()) continue;
    const file = join(folder, 'widget.json');
    if (!existsSync(file)) throw new BootError(`Widget folder ${folder} has no widget.json`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new BootError(`Invalid widget manifest ${file}: ${(err as Error).message}`);
    }
    const parsed = widgetManifestSchema.safeParse(raw);
    if (!parsed.success) {
      throw new BootError(
        `Invalid widget manifest ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      );
    }
    if (parsed.data.id !== name)
      throw new BootError(`Invalid widget manifest ${file}: id '${parsed.data.id}' must equal the folder name '${name}'`);
    if (!existsSync(join(folder, parsed.data.component)))
      throw new BootError(`Invalid widget manifest ${file}: component ${parsed.data.component} does not exist`);
    widgets.push(parsed.data);
  }
  return widgets;
}
