import { z } from 'zod';

/**
 * A storage option as it is read from every source (environment, plugins.options, System Settings): trimmed
 * text; blank counts as unset (the kernel skips blank settings and variables). Shared by the remote drivers.
 */
export const optionText = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), schema);

/** An http(s) address option. */
export const optionUrl = () => optionText(z.url({ protocol: /^https?$/ }));
