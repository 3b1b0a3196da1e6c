/**
 * The permissions of the kernel itself (its /api/system routes and instance settings). Feature
 * permissions are declared in the manifests of the plugins that own them (content, media, auth,
 * dashboard...); config:* is declared by the config-sync plugin, backup:* by the backups plugin.
 */
export const KERNEL_PERMISSIONS: Record<string, string> = {
  'system:read': 'Read system status, health details, pool and cache figures, themes',
  'system:settings': 'Change system settings and themes',
  'manage:system': 'Administer the instance: plugins, re-initialisation, maintenance',
};
