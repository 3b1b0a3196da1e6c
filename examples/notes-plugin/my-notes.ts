import { AuthenticationRequiredError, type Identity } from '../../kernel/sdk.js';
import { NoteNotFoundError } from './errors.js';
import type { Note, NotesStore } from './notes-store.js';

/**
 * Request-scoped: built once per request from its scope, so it knows who is calling (currentUser)
 * and nobody passes the identity through every call.
 */
export class MyNotes {
  constructor(
    private readonly store: NotesStore,
    private readonly user: Identity,
  ) {}

  private get owner(): { tenantId: string; userId: string } {
    if (!this.user.userId) throw new AuthenticationRequiredError('Notes belong to a signed-in user');
    return { tenantId: this.user.tenantId, userId: this.user.userId };
  }

  list(): Promise<Note[]> {
    return this.store.list(this.owner.tenantId, this.owner.userId);
  }

  add(text: string): Promise<Note> {
    return this.store.add(this.owner.tenantId, this.owner.userId, text);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.store.remove(this.owner.tenantId, this.owner.userId, id))) throw new NoteNotFoundError(id);
  }
}
