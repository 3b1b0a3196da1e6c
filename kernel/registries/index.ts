import { Registry } from './registry.js';
import type {
  AdminPageDefinition,
  CliCommand,
  HealthCheck,
  IdentityResolver,
  MiddlewareEntry,
  PermissionDefinition,
  SystemJob,
  WebSocketEndpoint,
} from './contracts.js';
import type { JobHandler } from '../jobs.js';

export * from './contracts.js';
export { Registry } from './registry.js';

/**
 * The entry types of the extension points that one plugin reads, declared by that plugin (the owner of the
 * contract) in its public.ts by module augmentation, so a contributor's `registries.storageDrivers.add(...)`
 * is typed by the media plugin's StorageDriver without the kernel knowing it:
 * `declare module '../../kernel/sdk.js' { interface ExtensionPoints { storageDrivers: StorageDriver } }`.
 * The kernel keeps the registries themselves and their runtime checks (below), read by manifest `provides`.
 */
export interface ExtensionPoints {}

/** An owned extension point's entry: the owner's contract, or a bare keyed entry when no owner declares it. */
type Owned<Name extends string, Key extends string> = Name extends keyof ExtensionPoints
  ? ExtensionPoints[Name] & object
  : Record<Key, string>;

/** The kernel's extension points. Manifest `provides` keys use these property names. */
export function createRegistries() {
  return {
    storageDrivers: new Registry<Owned<'storageDrivers', 'id'>>('Storage driver', 'id', {
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
    importFormats: new Registry<Owned<'importFormats', 'format'>>('Import format', 'format', {
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
    widgets: new Registry<Owned<'widgets', 'id'>>('Widget', 'id', {
      required: { name: 'string', license: ['freemium', 'paid'], endpoint: 'string', permission: 'string', component: 'string' },
      optional: { description: 'string', category: 'string', icon: 'string', version: 'string', defaultSize: 'object' },
    }),
    dataDomains: new Registry<Owned<'dataDomains', 'id'>>('Data-operation domain', 'id', {
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
    graphql: new Registry<Owned<'graphql', 'id'>>('GraphQL contribution', 'id', {
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
      optional: { usage: 'string', help: 'string' },
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
    dataMigrations: new Registry<Owned<'dataMigrations', 'id'>>('Data migration', 'id', { required: { description: 'string' } }),
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
