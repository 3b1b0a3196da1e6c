/**
 * The plugin SDK: the one kernel module plugins and examples import (`../../kernel/sdk.js`). It is
 * the kernel's contract with plugins: defining a plugin, its routes and errors, reaching services
 * (optional, requestScoped), the identity helpers, and the types of the services and registries the
 * kernel hands a plugin. Everything else in kernel/ is the kernel's own and may change; ESLint
 * (eslint.config.js, "plugin boundary") refuses other kernel imports from plugins.
 *
 * `scripts/codemod-sdk-imports.mjs` reads the export lists below to rewrite imports: keep them as
 * plain `export { ... } from` / `export type { ... } from` lists, one per module.
 */

// Plugins: definition, lifecycle, the container.
export { definePlugin, optional, requestScoped } from './plugin.js';
export type { BoundRegistry, PluginBootContext, PluginDefinition, PluginRegisterContext, PluginRegistries } from './plugin.js';
export type { KernelState } from './index.js';
export { KERNEL_VERSION, DIST_ROOT, PROJECT_ROOT } from './version.js';
export { SealedSecrets, type SealedSecretsOptions } from './sealed-secrets.js';

// Routes and HTTP helpers.
export { defineRoute, wrapNamedRoutes } from './http/route-table.js';
export { isOpenDuring, ROUTE_GATES, routeOpenDuring } from './http/gates.js';
export type { RouteGate } from './http/gates.js';
export type {
  ContainerServices,
  HttpMethod,
  RouteContext,
  RouteDefinition,
  RouteRequestSchemas,
  TypedRouteDefinition,
} from './http/route-table.js';
export type { IdentifyRequest } from './http/app.js';
export { SerialisedEnvelope, serialiseEnvelope } from './http/envelope.js';
export { etag, matchesIfNoneMatch, tagOf } from './http/etag.js';
export { multipartFile } from './http/multipart-file.js';
export { closeAndRemove, receiveMultipartFile } from './http/receive-multipart.js';
export type { ReceivedMultipart } from './http/receive-multipart.js';
export { checkInput, readInput } from './http/request-input.js';
export { clearBrowserCookie, setBrowserCookie } from './http/browser-cookie.js';
export type { HttpMetrics } from './http/http-metrics.js';
export { ADMIN_NAV_GROUPS } from './admin-nav.js';

// Identity and permissions.
export {
  assertPermission,
  GUEST,
  hasPermission,
  hasScopedPermission,
  inInstallationTenant,
  INSTALLATION_TENANT,
  isAdmin,
  isInstallationAdmin,
} from './http/identity.js';
export type { Identity } from './http/identity.js';
export { RULE_ACTIONS, RULE_USER, ruleLimits, rulesKey, rulesOf, hasRuleFor, scopeAllows, WRITE_ACTIONS } from './access-rules.js';
export type { AccessRule, KeyScope, RuleAction, RuleLimits } from './access-rules.js';

// Errors.
export {
  AppError,
  AuthenticationRequiredError,
  BootError,
  CmsError,
  ConflictError,
  ContractError,
  CsrfRejectedError,
  DatabaseUnavailableError,
  defineError,
  defineErrorCode,
  ERROR_CATALOGUE,
  ForbiddenError,
  InternalError,
  LockedError,
  MethodNotAllowedError,
  NotFoundError,
  NotReadyError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  retryAfter,
} from './errors.js';
export type { AppErrorOptions, DefinedErrorClass, ErrorBody, ErrorCatalogueEntry, ValidationIssue } from './errors.js';

// Events and the runtime primitives: typed events, followed in-memory copies, recurring work.
export { defineEvent, EVENTS_RESYNC } from './events.js';
export type { BusEvent, EventBus, EventHandler, EventName, PayloadOf } from './events.js';
export { SETTING_CHANGED } from './settings/events.js';
export type { SettingChangedEvent } from './settings/events.js';
export type { SeededSetting, SettingsCatalogueView, SettingsService } from './settings/store.js';
export { ChangeCounter } from './follow.js';
export type { Followed, FollowedEach, FollowEachOptions, FollowOptions } from './follow.js';
export { everyMsOption } from './every.js';
export type { EveryOptions, Recurring } from './every.js';

// Configuration. (wt-config: the options schema helpers are exported here after the merge.)
export type { CmsConfig } from './config.js';
// SDK: configuration (options schema) goes here.

// Database: models, migrations, the lock.
export { modelOf, modelsOf, ModelService } from './db/models.js';
export type { ModelMap, PluginModel } from './db/models.js';
export type { ReadRouting } from './db/read-routing.js';
export { column, rowsChanged, tableOf } from './db/columns.js';
export type { Column, ColumnOptions } from './db/columns.js';
export type { MigrationContext, MigrationDefinition, MigrationRunner } from './db/migrations.js';
export type { DbLock } from './db/lock.js';

// Registries and their contracts.
export { Registry } from './registries/registry.js';
export type { Contract, MemberKind } from './registries/registry.js';
export type { ExtensionPoints, Registries, RegistryName } from './registries/index.js';
export type {
  AdminPageDefinition,
  CliCommand,
  HealthCheck,
  IdentityResolver,
  MiddlewareEntry,
  PermissionDefinition,
  SystemJob,
  SystemJobContext,
  WebSocketEndpoint,
} from './registries/contracts.js';

// Kernel services plugins use (types; the instances come from the container).
export type { Logger } from './logger.js';
export type { WorkerPool } from './pool.js';
export type { CacheService } from './cache/cache-service.js';
export { JobInterruptedError } from './jobs.js';
export type { JobHandler, JobHelpers, JobQueue, JobStatus, JobView } from './jobs.js';
export type { AuditEntry, AuditInput, AuditLog, AuditPruneResult } from './audit.js';
export { recordRequestAudit, requestAuditFields } from './audit-request.js';
export type { AuditTarget } from './audit-request.js';
export { checkOutboundUrl, guardedFetch, guardedLookup, guardedStatus, isInternalAddress, OutboundAddressError } from './outbound.js';
