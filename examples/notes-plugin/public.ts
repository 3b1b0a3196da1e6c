/** What other plugins may rely on: the container keys, typed for `scope.<key>` (type-only). */
import type { MyNotes } from './my-notes.js';
import type { NotesStore } from './notes-store.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    notesStore: NotesStore;
    /** Request-scoped: the caller's notes. */
    myNotes: MyNotes;
  }
}
