/**
 * The permissions of the kernel itself (its /api/system routes and instance settings). Feature
 * permissions are declared in the manifests of the plugins that own them (content, media, auth,
 * dashboard...). config:*, migration:* and backup:* stay here until the data-operation plugins that
 * will own them exist, because the built-in roles grant them already.
 */
export const KERNEL_PERMISSIONS: Record<string, string> = {
  'system:read': 'Read system status, health details, pool and cache figures, themes',
  'system:settings': 'Change system settings and themes',
  'manage:system': 'Administer the instance: plugins, re-initialisation, maintenance',
  'config:read': 'Read configuration sync status and history',
  'config:write': 'Export, plan and apply configuration',
  'migration:read': 'Read data-migration status and history',
  'migration:apply': 'Plan, apply and verify data migrations',
  'backup:read': 'List backups and backup jobs',
  'backup:create': 'Create, validate and restore backups',
};
