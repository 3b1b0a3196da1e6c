// A typed plugin: `npx tsc` compiles it with the project into dist/examples/notes-plugin/ (plugin.json and
// the admin page are copied beside it); name that folder in plugins.paths.
import { asFunction } from 'awilix';
import { z } from 'zod';
import { definePlugin, requestScoped } from '../../kernel/sdk.js';
import { MyNotes } from './my-notes.js';
import { NotesStore } from './notes-store.js';
import { notesRoutes } from './routes.js';
import './public.js';

/** plugins.options.notes; NOTES_RETENTION_DAYS (plugin.json `env`) wins. The kernel merges and validates. */
const optionsSchema = z.object({ retentionDays: z.number().int().min(1).max(3650).default(365) });

export default definePlugin(() => {
  let retentionDays = 365; // per kernel: the factory runs once per kernel, never module-level state
  return {
    options: optionsSchema,
    register({ container, routes, migrations, options }) {
      retentionDays = options.retentionDays;
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
    // Recurring work with `every`: never overlapping, failures logged by name, stopped with the plugin.
    async boot({ container, logger, every }) {
      const store = container.resolve('notesStore');
      const prune = async () => {
        const n = await store.prune(retentionDays);
        if (n) logger.info({ pruned: n }, 'old notes pruned');
      };
      // Once now (a failure is logged as "notes prune failed", never thrown), then every hour.
      await every({ name: 'notes prune', everyMs: 3_600_000, run: prune }).runNow();
    },
  };
});
