import semver from 'semver';
import { BootError } from './errors.js';
import { PLUGIN_PHASES } from './manifest.js';
import type { DiscoveredPlugin } from './discovery.js';

export interface OrderInput {
  plugins: DiscoveredPlugin[];
  disabled: string[];
  enabled: string[];
  kernelVersion: string;
}

export interface OrderResult {
  /** Enabled plugins in boot order: by phase, dependencies first. */
  ordered: DiscoveredPlugin[];
  disabled: DiscoveredPlugin[];
  /** Ids named in config that no discovered plugin has. */
  unknownInConfig: string[];
}

/**
 * Decides which plugins run and in what order, in one visible sequence of checks: enablement,
 * kernel range, dependencies present and enabled, phases compatible, no cycles.
 */
export function orderPlugins(input: OrderInput): OrderResult {
  const byId = new Map(input.plugins.map((p) => [p.manifest.id, p]));
  const disabledSet = new Set(input.disabled);
  const enabledSet = new Set(input.enabled);
  const unknownInConfig = [...disabledSet, ...enabledSet].filter((id) => !byId.has(id));
  const isEnabled = (p: DiscoveredPlugin) =>
    !disabledSet.has(p.manifest.id) && (p.manifest.enabledByDefault || enabledSet.has(p.manifest.id));
  const enabled = input.plugins.filter(isEnabled);

  for (const p of enabled) {
    const { id, kernel } = p.manifest;
    if (!semver.satisfies(input.kernelVersion, kernel, { includePrerelease: true })) {
      throw new BootError(`Plugin '${id}' needs kernel ${kernel}, but this kernel is ${input.kernelVersion}`);
    }
  }
  const phaseIndex = (p: DiscoveredPlugin) => PLUGIN_PHASES.indexOf(p.manifest.phase);
  for (const p of enabled) {
    for (const dep of p.manifest.requires) {
      const target = byId.get(dep);
      if (!target) throw new BootError(`Plugin '${p.manifest.id}' requires '${dep}', which is not installed`);
      if (!isEnabled(target)) {
        const why = disabledSet.has(dep)
          ? 'disabled in config (plugins.disabled / CMS_PLUGINS_DISABLED)'
          : 'not enabled (enabledByDefault is false; add it to plugins.enabled)';
        throw new BootError(`Plugin '${p.manifest.id}' requires '${dep}', but '${dep}' is ${why}`);
      }
      if (phaseIndex(target) > phaseIndex(p)) {
        throw new BootError(
          `Plugin '${p.manifest.id}' (phase ${p.manifest.phase}) requires '${dep}', which boots later (phase ${target.manifest.phase})`,
        );
      }
    }
  }

  const ordered: DiscoveredPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: DiscoveredPlugin, path: string[]) => {
    const id = p.manifest.id;
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(id)), id];
      throw new BootError(`Plugin dependency cycle: ${cycle.join(' -> ')}`);
    }
    state.set(id, 'visiting');
    for (const dep of p.manifest.requires) visit(byId.get(dep)!, [...path, id]);
    state.set(id, 'done');
    ordered.push(p);
  };
  for (const p of enabled) visit(p, []);
  // A stable sort by phase keeps dependencies first, because a dependency never has a later phase.
  ordered.sort((a, b) => phaseIndex(a) - phaseIndex(b));
  return { ordered, disabled: input.plugins.filter((p) => !isEnabled(p)), unknownInConfig };
}
