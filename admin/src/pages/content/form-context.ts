// What the nested inputs of the entry form read from the editor: the component definitions (by name) and the
// API's issues by path (`sections.2.cta.url`), so a component's inner inputs show their own messages.
import { getContext, setContext } from 'svelte';
import type { ComponentMap } from './entry-values';

export interface EntryFormContext {
  readonly components: ComponentMap;
  readonly issues: Record<string, string>;
}
const KEY = Symbol('entry-form');
const EMPTY: EntryFormContext = { components: new Map(), issues: {} };

export const setEntryFormContext = (ctx: EntryFormContext): void => void setContext(KEY, ctx);
export const entryFormContext = (): EntryFormContext => getContext<EntryFormContext | undefined>(KEY) ?? EMPTY;
