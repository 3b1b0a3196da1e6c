// A typed plugin: `npx tsc` compiles it with the project into dist/examples/notes-plugin/ (plugin.json and
// the admin page are copied beside it); name that folder in plugins.paths.
import { asFunction } from 'awilix';
import { z } from 'zod';
import { BootError, definePlugin, requestScoped } from '../../kernel/sdk.js';
import { MyNotes } from './my-notes.js';
import { NotesStore } from './notes-store.js';
import { notesRoutes } from './routes.js';
import './public.js';

const optionsSchema = z.object({ retentionDays: z.number().int().min(1).max(3650).default(365) });

export default definePlugin<{ timer: NodeJS.Timeout }>(() => {
  let retentionDays = 365; // per kernel: the factory runs once per kernel, never module-level state
  return {
    register({ container, routes, migrations, options, envOptions }) {
      const parsed = optionsSchema.safeParse({ ...options, ...envOptions });
      if (!parsed.success)
        throw new BootError(
          `Invalid plugins.options.notes (or NOTES_RETENTION_DAYS): ${parsed.error.issues.map((i) => i.message).join('; ')}`,
        );
      retentionDays = parsed.data.retentionDays;
      migrations.add({
        name: '0001-notes',
        async up({ queryInterface, DataTypes }) {
          await queryInterface.createTable('notes_items', {
            id: { type: DataTypes.STRING(36), primaryKey: true },
            tenant_id: { type: DataTypes.STRING(64), allowNull: false },
            user_id: { type: DataTypes.STRING(36), allowNull: false },
            text: { type: DataTypes.STRING(500), allowNull: false },
            created_at: { type: DataTypes.BIGINT, allowNull: false },
          });
          await queryInterface.addIndex('notes_items', ['tenant_id', 'user_id', 'created_at']);
        },
      });
      container.register('notesStore', asFunction(({ sequelize }) => new NotesStore(sequelize)).singleton());
      container.register(
        'myNotes',
        requestScoped(({ notesStore, currentUser }) => new MyNotes(notesStore, currentUser)),
      );
      for (const route of notesRoutes) routes.add(route);
    },
    // State from boot to close: boot's return value is close's `state`.
    async boot({ container, logger }) {
      const store = container.resolve('notesStore');
      const prune = () =>
        store.prune(retentionDays).then(
          (n) => n && logger.info({ pruned: n }, 'old notes pruned'),
          (err) => logger.warn({ err }, 'notes not pruned'),
        );
      await prune();
      return { timer: setInterval(prune, 3_600_000).unref() };
    },
    close({ state }) {
      if (state) clearInterval(state.timer);
    },
  };
});
