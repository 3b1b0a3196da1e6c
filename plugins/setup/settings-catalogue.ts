/**
 * The default settings seeding writes: 23 public settings (readable by the admin UI and, later, the
 * settings API) and 12 private ones (credentials and keys, never sent to clients). The README lists them.
 * Every key here is read by the code it names (test/unit/settings-read.test.ts): a setting nothing reads
 * is not seeded. Changes made through the settings service are published as SETTING_CHANGED.
 */
export interface SettingDefault {
  key: string;
  value: unknown;
  description: string;
}

const s = (key: string, value: unknown, description: string): SettingDefault => ({ key, value, description });

export const PUBLIC_SETTINGS: SettingDefault[] = [
  s('SITE_NAME', 'My CMS', 'Site name shown in the admin UI, public branding and the maintenance page'),
  s('ADMIN_EMAIL', '', 'Address of the first administrator'),
  s('MEDIA_STORAGE_TYPE', 'local', 'local, object_store, object_store_edge or image_cdn'),
  s('MEDIA_FOLDER', 'media', 'Local folder or key prefix of media files'),
  s('MEDIA_CLOUD_REGION', null, 'Region of remote media storage'),
  s('MEDIA_CLOUD_ENDPOINT', null, 'Endpoint of S3-compatible storage'),
  s('MEDIA_CLOUD_PUBLIC_URL', null, 'Public base URL of remote media'),
  s('MEDIA_MAX_UPLOAD_MB', 100, 'Largest upload'),
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
    'Allowed upload types (the decisions: images, PDF, text, CSV, JSON, audio, video, office documents; SVG and HTML are served as attachments)',
  ),
  s('SESSION_DEVICE_POLICY', 'single-per-device', 'single-per-device, single-per-user or allow-multiple'),
  s('SESSION_TTL_HOURS', 24, 'Absolute session lifetime, applied to every new session (sign-in, 2FA step, sign-up)'),
  s('SESSION_IDLE_HOURS', 0, 'Sign-out after this many idle hours (0 = off)'),
  s('SESSION_MAX_PER_USER', 0, 'Sessions per user (0 = unlimited)'),
  s('GRAPHQL_MAX_DEPTH', 10, 'Deepest GraphQL operation accepted (2-50; plugins.options.graphql.maxDepth wins)'),
  s('GRAPHQL_MAX_COST', 1000, 'Most expensive GraphQL operation accepted (10-1000000; plugins.options.graphql.maxCost wins)'),
  s('DASHBOARD_DEFAULT_WIDGETS', ['system-health', 'last5-content', 'last5-media', 'cache-monitor'], 'Widgets of a new admin dashboard'),
  s('AUDIT_RETENTION_DAYS', 365, 'How long audit entries are kept'),
  s('AUDIT_IP_MODE', 'hash', "How audit entries keep the client's address: hash (keyed hash), full or none"),
  s(
    'MAINTENANCE_MODE',
    false,
    'Whether the instance answers 503 to everyone but administrators (health, sign-in, admin UI files and setup stay open)',
  ),
  s('UPDATE_CHECK_ENABLED', true, 'Whether the instance checks for updates'),
  s('DEMO_MODE', false, 'Demo installs limit sign-ups to DEMO_MAX_USERS users per tenant'),
  s('DEMO_MAX_USERS', 100, 'Users per tenant in demo mode'),
  s(
    'BACKUP_RETENTION_COUNT',
    10,
    'Backups kept (BACKUP_RETENTION_COUNT in the environment or plugins.options.backups.retentionCount wins)',
  ),
];

export const PRIVATE_SETTINGS: SettingDefault[] = [
  s('MEDIA_ACCESS_KEY_ID', null, 'Object-store access key id'),
  s('MEDIA_SECRET_ACCESS_KEY', null, 'Object-store secret key'),
  s('MEDIA_CDN_CLOUD_NAME', null, 'Image CDN cloud name'),
  s('MEDIA_CDN_API_KEY', null, 'Image CDN key'),
  s('MEDIA_CDN_API_SECRET', null, 'Image CDN secret'),
  s('OAUTH_GOOGLE_CLIENT_ID', null, 'Google sign-in client id'),
  s('OAUTH_GOOGLE_CLIENT_SECRET', null, 'Google sign-in client secret'),
  s('OIDC_ISSUER_URL', null, 'OpenID Connect issuer'),
  s('OIDC_CLIENT_ID', null, 'OpenID Connect client id'),
  s('OIDC_CLIENT_SECRET', null, 'OpenID Connect client secret'),
  s('LICENSE_KEY', null, 'Licence key of premium widgets'),
  s('TELEMETRY_URL', null, 'Update-check server'),
];
