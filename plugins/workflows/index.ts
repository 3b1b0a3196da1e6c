import { asValue } from 'awilix';
import { definePlugin, optional, type ContainerServices } from '../../kernel/sdk.js';
import { ENTRY_EVENTS, type CollectionsService, type EntriesService } from '../content/public.js';
import { ROLE_CHANGED, ROLE_RENAMED, type UsersService } from '../auth/public.js';
import { explainNotes } from './explain-notes.js';
import { WORKFLOW_MIGRATIONS } from './migrations.js';
import { WORKFLOWS_CHANGED } from './public.js';
import { routes } from './routes.js';
import { RoleFollowQueue } from './stage-roles.js';
import { StageMail, type ListedUser, type MailerLike } from './stage-mail.js';
import { WorkflowStore, type WorkflowRecord } from './workflow-store.js';
import { WorkflowsService } from './workflows-service.js';

/**
 * Review stages (docs/features/review-stages.md): /api/workflows, PUT /api/collections/:collection/:entryId/stage,
 * and content's entry hooks: `_stage` on answers, publishing refused outside the publish stage.
 */
export default definePlugin(() => {
  let service: WorkflowsService | null = null;
  const booted = () => {
    if (!service) throw new Error('review stages are used before their plugin booted');
    return service;
  };
  return {
    register(ctx) {
      for (const m of WORKFLOW_MIGRATIONS) ctx.migrations.add(m);
      for (const route of routes(booted)) ctx.routes.add(route);
      // The role explainer (auth) says when publishing needs a review stage (explain-notes.ts).
      ctx.container.register('explainNotes', asValue(explainNotes((tenantId, collection) => booted().of(tenantId, collection))));
    },
    async boot({ container, followEach, onClose, logger }) {
      const cradle: ContainerServices & Record<string, any> = container.cradle;
      const store = new WorkflowStore(() => cradle.sequelize);
      const users = () => optional(cradle, 'users') as UsersService | undefined;
      const copies = followEach<string, WorkflowRecord[]>({
        name: 'workflows',
        load: (tenantId) => store.list(tenantId),
        on: [WORKFLOWS_CHANGED],
        keysOf: (event) => [(event.payload as { tenantId: string }).tenantId],
        maxAgeMs: 60_000,
        max: 10_000,
      });
      const mail = new StageMail({
        mailer: () => optional(cradle, 'mailer' as never) as MailerLike | undefined,
        users: async (tenantId, page, limit) => {
          const listed = await users()?.list(tenantId, { page, limit });
          return listed ? { items: listed.items as unknown as ListedUser[], total: listed.total } : undefined;
        },
        permissionsOf: async (tenantId, role) => (await users()?.permissionsOf(role, tenantId)) ?? [],
        logger,
      });
      const entries = (): EntriesService => cradle.entries;
      service = new WorkflowsService({
        store,
        copies,
        collections: (): CollectionsService => cradle.collections,
        entries,
        events: cradle.events,
        roleNames: async (tenantId) => (await users()?.roles(tenantId))?.map((r) => r.name),
        mail,
        logger,
        audit: cradle.audit,
      });
      const running = service;
      onClose(entries().hooks.addPublishGuard((check) => running.guard(check)));
      onClose(entries().hooks.setStageFilter((collection, tenantId, stage) => running.stageWhere(collection, tenantId, stage)));
      onClose(entries().hooks.addDecorator((collection, identity, list) => running.decorate(collection, identity, list)));
      onClose(
        cradle.events.subscribe(ENTRY_EVENTS.delete, (event) => {
          const p = event.payload;
          if (p?.entry?._id) void running.forget(p.tenantId, p.collection, [String(p.entry._id)]).catch(() => undefined);
        }),
      );
      // A role renamed or deleted on this instance (each instance follows its own, so one writes): the stages follow.
      const roles = new RoleFollowQueue(
        (tenantId, renames) => running.followRoles(tenantId, renames),
        (err, tenantId) => logger.warn({ err, tenantId }, 'the roles of review stages did not follow a role change'),
      );
      const here = (event: { origin: string }) => event.origin === cradle.events.instanceId;
      onClose(
        cradle.events.subscribe(ROLE_RENAMED, (event) => {
          const { tenantId, from, to } = event.payload;
          if (here(event)) void roles.add(tenantId, { from, to });
        }),
      );
      onClose(
        cradle.events.subscribe(ROLE_CHANGED, (event) => {
          if (here(event)) void roles.add(event.payload.tenantId);
        }),
      );
      onClose(() => {
        service = null;
      });
    },
  };
});
