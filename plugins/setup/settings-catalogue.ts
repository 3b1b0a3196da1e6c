/**
 * The default settings seeding writes: 23 public settings (readable by the admin UI and the settings
 * API) and 12 private ones (credentials and keys, never sent to clients that are not administrators).
 * The README lists them. Every key here is read by the code it names (test/unit/settings-read.test.ts):
 * a setting nothing reads is not seeded. Changes made through the settings service are published as
 * SETTING_CHANGED.
 *
 * Each entry also declares what GET/PATCH /api/settings and the admin UI's Settings page need: its
 * type and bounds (the one source of the server's validation and the page's), its group, label and
 * scope. See SettingMeta.
 */
export type SettingType = 'string' | 'text' | 'email' | 'url' | 'integer' | 'number' | 'boolean' | 'enum' | 'string-list';

/** The Settings page's sections, in order (a plugin's setting names one of these, or `plugins`). */
export const SETTING_GROUPS = [
  { id: 'site', label: 'Site' },
  { id: 'security', label: 'Security and sessions' },
  { id: 'sign-in', label: 'Sign-in providers' },
  { id: 'media', label: 'Media and uploads' },
  { id: 'email', label: 'Email' },
  { id: 'maintenance', label: 'Maintenance' },
  { id: 'updates', label: 'Update check and licence' },
  { id: 'api', label: 'API limits' },
  { id: 'dashboard', label: 'Dashboard' },
  { id: 'audit', label: 'Audit log' },
  { id: 'backups', label: 'Backups' },
  { id: 'plugins', label: 'Plugins' },
] as const;
export type SettingGroup = (typeof SETTING_GROUPS)[number]['id'];

/** How a setting is declared (the seeded ones here; plugins through the settings registry, public.ts). */
export interface SettingMeta {
  type: SettingType;
  group: SettingGroup;
  /** Short name shown on the Settings page. */
  label: string;
  /** enum: the allowed values. */
  options?: readonly string[];
  /** integer/number: bounds (inclusive). */
  min?: number;
  max?: number;
  /** string-like types and each item of a string-list: the longest value. */
  maxLength?: number;
  /** string-list: most items; each item must match itemPattern (a regular expression source) when given. */
  maxItems?: number;
  itemPattern?: string;
  /** null (no value) is accepted; empty text is stored as null. */
  nullable?: boolean;
  /** Write-only: the value is never answered (GET gives null and isSet). */
  secret?: boolean;
  /**
   * `installation`: read from the installation's (default) tenant whoever the caller is, so only
   * installation administrators change it; `tenant` (default): each tenant has its own value.
   */
  scope?: 'tenant' | 'installation';
  /** Changing it needs sudo mode (recent re-authentication), like other security-sensitive operations. Secrets always do. */
  sensitive?: boolean;
  /** Read when the instance starts (the media storage drivers): a change takes effect after a restart. */
  restart?: boolean;
}

export interface SettingDefault extends SettingMeta {
  key: string;
  value: unknown;
  description: string;
}

const s = (key: string, value: unknown, description: string, meta: SettingMeta): SettingDefault => ({ key, value, description, ...meta });

const MIME_PATTERN = '^[a-z0-9.+-]+/(\\*|[a-z0-9.+-]+)$';
const inst = { scope: 'installation' } as const;
/** Media storage: the drivers read these at boot. */
const storage = { scope: 'installation', restart: true } as const;

export const PUBLIC_SETTINGS: SettingDefault[] = [
  s('SITE_NAME', 'My CMS', 'Site name shown in the admin UI, public branding and the maintenance page', {
    type: 'string',
    group: 'site',
    label: 'Site name',
    maxLength: 64,
  }),
  s('ADMIN_EMAIL', '', 'Address of the first administrator', {
    type: 'email',
    group: 'email',
    label: 'Administrator email',
    maxLength: 191,
  }),
  s(
    'MEDIA_STORAGE_TYPE',
    'local',
    'Where media files are stored: on this server (local), an object store, an object store at the edge, or an image CDN',
    {
      type: 'enum',
      group: 'media',
      label: 'Media storage',
      options: ['local', 'object_store', 'object_store_edge', 'image_cdn'],
      sensitive: true,
      ...storage,
    },
  ),
  s('MEDIA_FOLDER', 'media', 'Local folder or key prefix of media files', {
    type: 'string',
    group: 'media',
    label: 'Media folder',
    maxLength: 191,
    sensitive: true,
    ...storage,
  }),
  s('MEDIA_CLOUD_REGION', null, 'Region of remote media storage', {
    type: 'string',
    group: 'media',
    label: 'Remote storage region',
    maxLength: 64,
    nullable: true,
    ...storage,
  }),
  s('MEDIA_CLOUD_ENDPOINT', null, 'Endpoint of S3-compatible storage', {
    type: 'url',
    group: 'media',
    label: 'Remote storage endpoint',
    maxLength: 2048,
    nullable: true,
    sensitive: true,
    ...storage,
  }),
  s('MEDIA_CLOUD_PUBLIC_URL', null, 'Public base URL of remote media', {
    type: 'url',
    group: 'media',
    label: 'Public address of remote media',
    maxLength: 2048,
    nullable: true,
    sensitive: true,
    ...storage,
  }),
  s('MEDIA_MAX_UPLOAD_MB', 100, 'Largest upload', {
    type: 'number',
    group: 'media',
    label: 'Largest upload (MB)',
    min: 1,
    max: 10240,
    ...inst,
  }),
  s(
    'MEDIA_ALLOWED_TYPES',
    [
      'image/*',
      'application/pdf',
      'text/plain',
      'text/csv',
      'application/json',
      'audio/*',
      'video/*',
      'text/html',
      'application/msword',
      'application/vnd.ms-excel',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.presentation',
    ],
    'File types people may upload, such as image/* or application/pdf (SVG and HTML files are offered as downloads, never shown in the page)',
    {
      type: 'string-list',
      group: 'media',
      label: 'Allowed file types',
      maxItems: 100,
      maxLength: 127,
      itemPattern: MIME_PATTERN,
      ...inst,
    },
  ),
  s('SESSION_DEVICE_POLICY', 'single-per-device', 'One session per device, one per person, or several at once', {
    type: 'enum',
    group: 'security',
    label: 'Sessions per device',
    options: ['single-per-device', 'single-per-user', 'allow-multiple'],
    sensitive: true,
    ...inst,
  }),
  s('SESSION_TTL_HOURS', 24, 'How long a sign-in lasts, in hours, counted from signing in (applies to new sign-ins)', {
    type: 'number',
    group: 'security',
    label: 'Session lifetime (hours)',
    min: 0.01,
    max: 8760,
    sensitive: true,
    ...inst,
  }),
  s('SESSION_IDLE_HOURS', 0, 'Sign people out after this many hours without activity (0 = never)', {
    type: 'number',
    group: 'security',
    label: 'Sign out after idle hours',
    min: 0,
    max: 8760,
    sensitive: true,
    ...inst,
  }),
  s('SESSION_MAX_PER_USER', 0, 'How many sessions one person may have at once (0 = no limit); the least recently used one is signed out', {
    type: 'integer',
    group: 'security',
    label: 'Sessions per user',
    min: 0,
    max: 1000,
    sensitive: true,
    ...inst,
  }),
  s('GRAPHQL_MAX_DEPTH', 10, 'How deeply nested one GraphQL query may be (a limit in the server configuration wins)', {
    type: 'integer',
    group: 'api',
    label: 'Deepest GraphQL query',
    min: 2,
    max: 50,
    ...inst,
  }),
  s('GRAPHQL_MAX_COST', 1000, 'How much work one GraphQL query may ask for (a limit in the server configuration wins)', {
    type: 'integer',
    group: 'api',
    label: 'Most expensive GraphQL query',
    min: 10,
    max: 1000000,
    ...inst,
  }),
  s('DASHBOARD_DEFAULT_WIDGETS', ['system-health', 'last5-content', 'last5-media', 'cache-monitor'], 'Widgets of a new admin dashboard', {
    type: 'string-list',
    group: 'dashboard',
    label: 'Widgets of a new dashboard',
    maxItems: 50,
    maxLength: 64,
    itemPattern: '^[a-z0-9][a-z0-9-]*$',
    ...inst,
  }),
  s('AUDIT_RETENTION_DAYS', 365, 'How long audit entries are kept', {
    type: 'integer',
    group: 'audit',
    label: 'Keep audit entries (days)',
    min: 0,
    max: 36500,
    sensitive: true,
    ...inst,
  }),
  s('AUDIT_IP_MODE', 'hash', "How the audit log keeps visitors' addresses: hash (a keyed fingerprint), full or none", {
    type: 'enum',
    group: 'audit',
    label: 'Client addresses in the audit log',
    options: ['hash', 'full', 'none'],
    sensitive: true,
  }),
  s(
    'MAINTENANCE_MODE',
    false,
    'Whether the site serves only administrators: everyone else gets a "down for maintenance" page (health checks and sign-in stay open)',
    { type: 'boolean', group: 'maintenance', label: 'Maintenance mode' },
  ),
  s('UPDATE_CHECK_ENABLED', true, 'Whether the instance checks for updates', {
    type: 'boolean',
    group: 'updates',
    label: 'Check for updates',
    ...inst,
  }),
  s('DEMO_MODE', false, 'Demo sites limit how many people can sign up (the number below)', {
    type: 'boolean',
    group: 'site',
    label: 'Demo mode',
  }),
  s('DEMO_MAX_USERS', 100, 'Users per tenant in demo mode', {
    type: 'integer',
    group: 'site',
    label: 'Users in demo mode',
    min: 0,
    max: 100000,
  }),
  s('BACKUP_RETENTION_COUNT', 10, 'How many backups are kept; older ones are deleted (a number in the server configuration wins)', {
    type: 'integer',
    group: 'backups',
    label: 'Backups kept',
    min: 1,
    max: 1000,
    ...inst,
  }),
];

const secret = { secret: true, nullable: true, sensitive: true, ...inst } as const;

export const PRIVATE_SETTINGS: SettingDefault[] = [
  s('MEDIA_ACCESS_KEY_ID', null, 'Object-store access key id', {
    type: 'string',
    group: 'media',
    label: 'Object-store access key id',
    maxLength: 256,
    nullable: true,
    sensitive: true,
    ...storage,
  }),
  s('MEDIA_SECRET_ACCESS_KEY', null, 'Object-store secret key', {
    type: 'string',
    group: 'media',
    label: 'Object-store secret key',
    maxLength: 1024,
    ...secret,
    restart: true,
  }),
  s('MEDIA_CDN_CLOUD_NAME', null, 'Image CDN cloud name', {
    type: 'string',
    group: 'media',
    label: 'Image CDN cloud name',
    maxLength: 256,
    nullable: true,
    sensitive: true,
    ...storage,
  }),
  s('MEDIA_CDN_API_KEY', null, 'Image CDN key', {
    type: 'string',
    group: 'media',
    label: 'Image CDN key',
    maxLength: 1024,
    ...secret,
    restart: true,
  }),
  s('MEDIA_CDN_API_SECRET', null, 'Image CDN secret', {
    type: 'string',
    group: 'media',
    label: 'Image CDN secret',
    maxLength: 1024,
    ...secret,
    restart: true,
  }),
  s('OAUTH_GOOGLE_CLIENT_ID', null, 'Google sign-in client id', {
    type: 'string',
    group: 'sign-in',
    label: 'Google client id',
    maxLength: 512,
    nullable: true,
    sensitive: true,
    ...inst,
  }),
  s('OAUTH_GOOGLE_CLIENT_SECRET', null, 'Google sign-in client secret', {
    type: 'string',
    group: 'sign-in',
    label: 'Google client secret',
    maxLength: 1024,
    ...secret,
  }),
  s('OIDC_ISSUER_URL', null, 'OpenID Connect issuer', {
    type: 'url',
    group: 'sign-in',
    label: 'OpenID Connect issuer',
    maxLength: 2048,
    nullable: true,
    sensitive: true,
    ...inst,
  }),
  s('OIDC_CLIENT_ID', null, 'OpenID Connect client id', {
    type: 'string',
    group: 'sign-in',
    label: 'OpenID Connect client id',
    maxLength: 512,
    nullable: true,
    sensitive: true,
    ...inst,
  }),
  s('OIDC_CLIENT_SECRET', null, 'OpenID Connect client secret', {
    type: 'string',
    group: 'sign-in',
    label: 'OpenID Connect client secret',
    maxLength: 1024,
    ...secret,
  }),
  s('LICENSE_KEY', null, 'Licence key of premium widgets', {
    type: 'string',
    group: 'updates',
    label: 'Licence key',
    maxLength: 4096,
    ...secret,
  }),
  s('TELEMETRY_URL', null, 'Update-check server', {
    type: 'url',
    group: 'updates',
    label: 'Update-check server',
    maxLength: 2048,
    nullable: true,
    sensitive: true,
    ...inst,
  }),
];
