// The singleton collections (one entry each: site settings, a home page), shown in the sidebar as single
// pages under Content. Read from GET /api/collections; read again when a content page opens (a singleton
// may just have been created) and after sign-in.
import { remote } from './remote';

class Singletons {
  list = $state<Array<{ name: string; label: string }>>([]);
  private loading: Promise<void> | null = null;

  /** Reads the list again (one read at a time); a failed read keeps the last list. */
  refresh(): Promise<void> {
    this.loading ??= remote('GET /api/collections')
      .then((cols) => {
        this.list = cols.filter((c) => c.singleton).map((c) => ({ name: c.name, label: c.label }));
      })
      .catch(() => undefined)
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

export const singletons = new Singletons();
