import { z } from 'zod';
import { RULE_ACTIONS, ValidationError, type KeyScope } from '../../kernel/sdk.js';

/**
 * An API key's scope (issue 38, "API keys scoped per collection and action"): `[{collection, actions}]`, the
 * collections (or `*`) and content actions the key may use (kernel/access-rules.ts, scopeAllows). Only narrows: the
 * key still needs `content:read` for read and `content:write` for the other actions among its permissions (or their
 * one-collection grants), and its creator's role rules still apply.
 */
export const keyScopeSchema = z
  .array(
    z
      .object({
        collection: z.string().min(1).max(64).describe('A collection name, or * for every collection'),
        actions: z.array(z.enum(RULE_ACTIONS)).min(1).max(5),
      })
      .strict(),
  )
  .min(1)
  .max(100)
  .optional()
  .describe('Limits the key to these collections and content actions (read, create, update, delete, publish)');

/** A scope naming an action the key's permissions do not allow is 400 VALIDATION_ERROR naming it (it would never work). */
export function checkKeyScope(scope: KeyScope[] | undefined, permissions: string[]): void {
  const issues: Array<{ path: string; message: string }> = [];
  for (const [i, s] of (scope ?? []).entries())
    for (const action of s.actions) {
      const needed = action === 'read' ? 'content:read' : 'content:write';
      if (!permissions.includes(needed) && !(s.collection !== '*' && permissions.includes(`${needed}:${s.collection}`)))
        issues.push({ path: `body.scope.${i}.actions`, message: `${action} needs the permission ${needed} among the key's permissions` });
    }
  if (issues.length) throw new ValidationError(`Invalid scope: ${issues.map((p) => `${p.path}: ${p.message}`).join('; ')}`, issues);
}
