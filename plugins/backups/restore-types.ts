/**
 * What the steps of a backup restore share: the stored plan input, the payload of each planned
 * operation, the tables of the configuration part and the domain's dependencies (read lazily: the
 * domain is built at register, the services exist after boot).
 */
import type { Sequelize } from 'sequelize';
import type { EventBus } from '../../kernel/sdk.js';
import type {
  CollectionsService,
  ComponentsService,
  EntriesService,
  FieldDefinition,
  LocaleDefinition,
  LocalesService,
} from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import type { BackupsService } from './backups-service.js';

export interface RestoreInput {
  backupId: string;
  keyRef: string | null;
  encrypted: boolean;
  /** An installation administrator took a backup whose manifest MAC is not this installation's (restore-plan foreign: true). */
  foreign?: boolean;
}

export type Payload =
  | { kind: 'clear'; table: string; collection?: string }
  | { kind: 'rows'; table: string; file: string; collection?: string }
  | { kind: 'config'; part: 'roles' | 'themes' | 'settings'; table: string }
  | { kind: 'media-files' }
  | { kind: 'collection'; name: string; label?: string; singular?: string; fields: FieldDefinition[] }
  | { kind: 'component'; name: string; label: string; fields: FieldDefinition[] }
  | { kind: 'locales'; locales: LocaleDefinition[] }
  /** Entries' versions in other locales (entry-locales.ts): those of the backup's collections deleted, then the backup's inserted. */
  | { kind: 'entry-locales-clear'; collections: string[] }
  | { kind: 'entry-locales'; file: string }
  /** Working drafts (entry-drafts.ts), as the versions in other locales. */
  | { kind: 'entry-drafts-clear'; collections: string[] }
  | { kind: 'entry-drafts'; file: string }
  /** When the default locale's values last changed (entry-locale-times.ts), as the versions in other locales. */
  | { kind: 'entry-locale-times-clear'; collections: string[] }
  | { kind: 'entry-locale-times'; file: string }
  /** The revisions of a replaced collection that no restored entry reaches (restore-revisions.ts). */
  | { kind: 'later-revisions'; table: string; collection: string };

export const CONFIG_TABLES = { roles: 'auth_roles', themes: 'themes', settings: 'cms_settings' } as const;

export interface DomainDeps {
  service: () => BackupsService;
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  /** The content plugin's components (restored before the collections that use them). */
  components: () => ComponentsService | undefined;
  /** The content plugin's locales (restored first: collections' localized fields read in them). */
  locales: () => LocalesService | undefined;
  mediaStorage: () => MediaStorage | undefined;
  entries: () => EntriesService | undefined;
  /** The auth plugin's sessions (their cached role permissions are dropped for users of a restored role). */
  sessions: () => { forgetUser(userId: string): Promise<void> } | undefined;
  /** The auth plugin's API keys and website tokens (cached with their creator's role permissions, dropped the same way). */
  tokens: () => { userChanged(userId: string): Promise<void> } | undefined;
  /** The themes plugin (its cached public branding is dropped per tenant after themes are restored). */
  themes: () => { changed(tenantId: string): Promise<void> } | undefined;
  logger: () => { warn(obj: object, msg: string): void } | undefined;
  /** The event bus: a restored role's change is announced (ROLE_CHANGED), so every instance reads its rules again. */
  events: () => Pick<EventBus, 'publish'>;
  pageSize: number;
}

/** A collection's entry table here (a collection created by the restore gets the content plugin's name). */
export function tableOf(d: DomainDeps, collection: string, fallback: string): string {
  return (
    d
      .collections()
      .list()
      .find((c) => c.name === collection)?.table ?? fallback
  );
}
