/**
 * The deepest nesting of (), [] and {} in a text, outside quoted strings ("..." and '...', with
 * backslash escapes). Recursive-descent parsers (css-tree, graphql-js) overflow the stack on a few
 * thousand levels: callers refuse input past a limit before parsing it. Linear, no recursion.
 */
export function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') deepest = Math.max(deepest, ++depth);
    else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
  }
  return deepest;
}
