// TEMPORARY placeholder until the editor branch lands (it owns this file).
import sanitizeHtml from 'sanitize-html';
import { marked } from 'marked';

export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html);
}

export function renderMarkdown(source: string): string {
  return sanitizeHtml(marked.parse(source, { async: false }));
}
