import { z } from 'zod';
import { defineRoute } from '../../kernel/sdk.js';

const note = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });

/** params, query and body are typed from the zod schemas; scope.myNotes from public.ts: no casts. */
export const notesRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/notes',
    permission: 'authenticated',
    tags: ['notes'],
    summary: 'Your notes, newest first (at most 100)',
    request: {},
    response: z.object({ notes: z.array(note) }),
    handler: async ({ scope }) => ({ notes: await scope.myNotes.list() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/notes',
    permission: 'authenticated',
    tags: ['notes'],
    status: 201,
    summary: 'Adds a note',
    request: { body: z.object({ text: z.string().trim().min(1).max(500) }) },
    response: note,
    handler: ({ body, scope }) => scope.myNotes.add(body.text),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/notes/:id',
    permission: 'authenticated',
    tags: ['notes'],
    summary: 'Deletes one of your notes (404 NOTE_NOT_FOUND otherwise)',
    request: { params: z.object({ id: z.string().uuid() }) },
    response: z.object({ deleted: z.literal(true) }),
    async handler({ params, scope }) {
      await scope.myNotes.remove(params.id);
      return { deleted: true as const };
    },
  }),
];
