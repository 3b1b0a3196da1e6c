// Attributes of the admin UI's own custom elements, for the type check of <svelte:element this={tag}>
// (a dynamic tag is typed with the generic HTML attributes).
import 'svelte/elements';

declare module 'svelte/elements' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merging needs the same type parameter as svelte/elements
  export interface HTMLAttributes<T> {
    /** <cms-widget-*>: seconds between two fetches of the widget's data. */
    refresh?: string | number | null;
  }
}
