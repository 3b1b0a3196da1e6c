/** One element collected while streaming (an item, an author, a term and their descendants). */
export interface WxrNode {
  /** Canonical key (see elementKey), or null for an element of a foreign namespace. */
  key: string | null;
  /** Attributes without a namespace. */
  attrs: Record<string, string>;
  /** Character data and CDATA sections, concatenated as read. */
  text: string;
  children: WxrNode[];
  /** While reading: white space not yet known to be data (dropped around CDATA sections). */
  ws?: string;
  cdata?: boolean;
  /** Line where the element starts. */
  line: number;
}

/** The first child with this key. */
export function child(node: WxrNode, key: string): WxrNode | undefined {
  return node.children.find((c) => c.key === key);
}

export function children(node: WxrNode, key: string): WxrNode[] {
  return node.children.filter((c) => c.key === key);
}

/** Without leading and trailing XML white space (other invisible characters are data, kept). */
export const clean = (text: string): string => text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');

/** Trimmed text of the first child with this key that has some ('' when none). */
export function textOf(node: WxrNode, key: string): string {
  for (const c of node.children) {
    if (c.key !== key) continue;
    const value = clean(c.text);
    if (value !== '') return value;
  }
  return '';
}

/** Text of the first child with this key exactly as written (content, meta values), or undefined. */
export function rawTextOf(node: WxrNode, key: string): string | undefined {
  return child(node, key)?.text;
}
