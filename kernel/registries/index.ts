import { Registry } from './registry.js';
import type {
  AdminPageDefinition,
  CliCommand,
  DataDomain,
  GraphqlContribution,
  HealthCheck,
  IdentityResolver,
  ImportFormat,
  MiddlewareEntry,
  PermissionDefinition,
  StorageDriver,
  SystemJob,
  WebSocketEndpoint,
  WidgetDefinition,
} from './contracts.js';
import type { JobHandler } from '../jobs.js';
import type { DataMigrationDeclaration } from './contracts.js';

export * from './contracts.js';
export { Registry } from './registry.js';

/** The kernel's extension points. Manifest `provides` keys use these property names. */
export function createRegistries() {
  return {
    storageDrivers: new Registry<StorageDriver>('Storage driver', 'id', {
      required: {
        kind: ['local', 'remote'],
        put: 'function',
        get: 'function',
        head: 'function',
        delete: 'function',
        publicUrl: 'function',
      },
      optional: { listTrash: 'function', restore: 'function', purge: 'function', check: 'function' },
    }),
    importFormats: new Registry<ImportFormat>('Import format', 'format', {
      required: {
        label: 'string',
        extensions: 'string[]',
        features: 'string[]',
        detect: 'function',
        parseTask: 'string',
        taskFile: 'string',
      },
      optional: { description: 'string' },
    }),
    widgets: new Registry<WidgetDefinition>('Widget', 'id', {
      required: { name: 'string', license: ['freemium', 'paid'], endpoint: 'string', permission: 'string', component: 'string' },
      optional: { description: 'string', category: 'string', icon: 'string', version: 'string', defaultSize: 'object' },
    }),
    dataDomains: new Registry<DataDomain>('Data-operation domain', 'id', {
      required: {
        modes: 'string[]',
        defaultMode: ['add', 'merge', 'mirror', 'replace'],
        inlineThreshold: 'number',
        auditDomain: ['config', 'content-package', 'migration', 'importer', 'backup', 'content-sync'],
        validate: 'function',
        snapshot: 'function',
        plan: 'function',
        apply: 'function',
        verify: 'function',
      },
      optional: { transactional: 'boolean' },
    }),
    graphql: new Registry<GraphqlContribution>('GraphQL contribution', 'id', {
      required: { typeDefs: 'string', resolvers: 'object' },
    }),
    permissions: new Registry<PermissionDefinition>('Permission', 'name', { required: { description: 'string' } }),
    identityResolvers: new Registry<IdentityResolver>('Identity resolver', 'id', {
      required: { priority: 'number', resolve: 'function' },
      optional: { ambient: 'boolean' },
    }),
    healthChecks: new Registry<HealthCheck>('Health check', 'id', { required: { check: 'function' }, optional: { exposeAs: 'string' } }),
    jobHandlers: new Registry<JobHandler>('Job handler', 'type', { required: { run: 'function' } }),
    websockets: new Registry<WebSocketEndpoint>('WebSocket endpoint', 'id', { required: { path: 'string', handleUpgrade: 'function' } }),
    middleware: new Registry<MiddlewareEntry>('Middleware', 'id', {
      required: { stage: ['beforeIdentity', 'afterIdentity'], handler: 'function' },
    }),
    cliCommands: new Registry<CliCommand>('CLI command', 'name', {
      required: { summary: 'string', run: 'function' },
      optional: { usage: 'string' },
    }),
    /**
     * Named maintenance jobs (POST /api/system-jobs, plugins/system). Not a manifest `provides` key: the
     * running instance lists them (GET /api/system-jobs), and a plugin adds them without a manifest change.
     */
    systemJobs: new Registry<SystemJob>('System job', 'name', {
      required: { description: 'string', handler: 'function' },
      optional: { params: 'object' },
    }),
    /** Data migrations declared by plugins: {id, description, steps}; the data-migrations plugin validates the steps (README "Data migrations"). */
    dataMigrations: new Registry<DataMigrationDeclaration>('Data migration', 'id', { required: { description: 'string' } }),
    /** Filled by the loader from the manifests' `adminPages` (enabled plugins only), keyed by path. */
    adminPages: new Registry<AdminPageDefinition>('Admin page', 'path', {
      required: { pluginId: 'string', title: 'string', module: 'object' },
      optional: { icon: 'string', permission: 'string' },
    }),
  };
}

export type Registries = ReturnType<typeof createRegistries>;
export type RegistryName = keyof Registries;
/** Registries whose contents a manifest declares under `provides` (permissions come from `permissions`). */
export const PROVIDES_KEYS = [
  'storageDrivers',
  'importFormats',
  'widgets',
  'dataDomains',
  'graphql',
  'identityResolvers',
  'healthChecks',
  'jobHandlers',
  'middleware',
  'websockets',
  'cliCommands',
  'dataMigrations',
] as const satisfies readonly RegistryName[];
