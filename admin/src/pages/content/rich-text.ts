// Helpers of the rich-text editor (RichTextEditor.svelte): which link addresses it accepts, and the clean-up
// of HTML pasted from Word or Google Docs. The server sanitises every rich-text value again on write
// (plugins/content/rich-text.ts); these keep the editor's own document tidy.

/** http(s) and mailto addresses, and relative ones (`/files/a.pdf`, `#top`, `page.html`); never javascript: or data:. */
export function isSafeHref(href: string): boolean {
  const h = href.trim();
  if (!h || /[\s<>"]/.test(h.replace(/ /g, '%20'))) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(h)?.[1]?.toLowerCase();
  if (scheme) return scheme === 'http' || scheme === 'https' || scheme === 'mailto';
  return !h.startsWith('//');
}

/** Inline styles that carry meaning in pasted HTML, turned into markup before the styles go. */
function styleMarks(el: HTMLElement): string[] {
  const s = el.style;
  const marks: string[] = [];
  const weight = s.fontWeight;
  if (weight === 'bold' || Number(weight) >= 600) marks.push('strong');
  if (s.fontStyle === 'italic') marks.push('em');
  if (/line-through/.test(s.textDecoration || s.textDecorationLine)) marks.push('s');
  return marks;
}

/**
 * Pasted HTML without what office suites add: comments, `<o:p>` and other namespaced tags, `<style>`,
 * `<meta>`, Word's list-bullet spans, every `class`, `style`, `id`, `lang` and `mso-*` attribute, and Google
 * Docs' `<b style="font-weight:normal" id="docs-internal-guid-…">` wrapper (it would make everything
 * bold). Bold, italic and strike-through given by inline styles (Google Docs' spans) become
 * `<strong>`, `<em>`, `<s>` first.
 */
export function cleanPastedHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const body = doc.body;
  // Comments (Word's <!--[if !supportLists]--> and the like).
  const comments: Node[] = [];
  const walker = doc.createTreeWalker(body, NodeFilter.SHOW_COMMENT);
  while (walker.nextNode()) comments.push(walker.currentNode);
  for (const c of comments) c.parentNode?.removeChild(c);
  for (const el of [...body.querySelectorAll('style, meta, link, script, title, xml, template')]) el.remove();
  for (const el of [...body.querySelectorAll<HTMLElement>('*')]) {
    if (!el.isConnected) continue;
    const tag = el.tagName.toLowerCase();
    // Word's <o:p>, <w:sdt>, <v:shape>…: namespaced tags, usually empty or a non-breaking space.
    if (tag.includes(':')) {
      if (tag === 'o:p') el.remove();
      else el.replaceWith(...el.childNodes);
      continue;
    }
    // Word's fake list bullets ("·", "1.") are spans styled mso-list:Ignore.
    if (/mso-list:\s*ignore/i.test(el.getAttribute('style') ?? '')) {
      el.remove();
      continue;
    }
    if (tag === 'b' && /^docs-internal-guid/.test(el.id)) {
      el.replaceWith(...el.childNodes);
      continue;
    }
    const marks = tag === 'span' || tag === 'p' || tag === 'li' ? styleMarks(el) : [];
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      if (name === 'style' || name === 'class' || name === 'id' || name === 'lang' || name.startsWith('mso-') || name.startsWith('on'))
        el.removeAttribute(attr.name);
    }
    if (marks.length) {
      let inner: Node[] = [...el.childNodes];
      for (const m of marks.reverse()) {
        const wrap = doc.createElement(m);
        wrap.append(...inner);
        inner = [wrap];
      }
      el.replaceChildren(...inner);
    }
  }
  return body.innerHTML;
}
