import { BootError } from '../errors.js';
import type { PluginManifest } from '../manifest.js';

export interface NamespaceEntry {
  owner: string;
  /** Method (or '*') -> permission (`public`, `authenticated` or a permission name). */
  methods: Record<string, string>;
}

/**
 * The dispatcher's map (the spec's ENDPOINT_PERMISSIONS), built from plugin manifests. A namespace
 * that no manifest maps is refused with 403 for everyone but admins (fail closed).
 */
export class NamespaceMap {
  private readonly map = new Map<string, NamespaceEntry>();

  addFromManifest(manifest: PluginManifest): void {
    for (const [ns, methods] of Object.entries(manifest.namespaces)) {
      const existing = this.map.get(ns);
      if (!existing) {
        this.map.set(ns, { owner: manifest.id, methods: { ...(methods as Record<string, string>) } });
        continue;
      }
      for (const [method, permission] of Object.entries(methods as Record<string, string>)) {
        const before = existing.methods[method];
        if (before !== undefined && before !== permission) {
          throw new BootError(
            `Namespace '${ns}' ${method}: plugin '${manifest.id}' maps it to '${permission}' but plugin '${existing.owner}' maps it to '${before}'`,
          );
        }
        existing.methods[method] = permission;
      }
    }
  }

  /** The permission a method needs in a namespace, or undefined when unmapped (fail closed). */
  permissionFor(namespace: string, method: string): string | undefined {
    const entry = this.map.get(namespace);
    if (!entry) return undefined;
    const m = method === 'HEAD' ? 'GET' : method;
    return entry.methods[m] ?? entry.methods['*'];
  }

  has(namespace: string): boolean {
    return this.map.has(namespace);
  }

  entries(): Array<[string, NamespaceEntry]> {
    return [...this.map];
  }
}
