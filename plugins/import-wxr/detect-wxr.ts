/**
 * Detection of the `xml_blog` format from the upload's profile (structure, not a guess from a prefix):
 * an `<rss>` root that declares the WXR namespace (`http://wordpress.org/export/1.x/`) is WordPress;
 * an `<rss>` root using `wp:` elements without declaring the namespace probably is; anything else is not.
 */
import type { ImportSample } from '../importers/public.js';

const WXR_NS = /^https?:\/\/wordpress\.org\/export\/\d+\.\d+\/?$/;

export function detectWxr(sample: ImportSample): number {
  const xml = sample.profile?.kind === 'xml' ? sample.profile.xml : undefined;
  if (!xml || xml.root !== 'rss') return 0;
  const declared = Object.values(xml.namespaces ?? {}).some((uri) => WXR_NS.test(uri));
  const wpElements = (xml.elements ?? []).some((name) => name.startsWith('wp:'));
  const extension = /\.wxr$/i.test(sample.filename) ? 0.03 : /\.xml$/i.test(sample.filename) ? 0.01 : 0;
  let score: number;
  if (declared) score = wpElements ? 0.96 : 0.9;
  else if (wpElements) score = 0.6;
  else return 0;
  // A file that is not well-formed is still offered (the parse warns and imports what it can read).
  if (xml.wellFormed === false) score -= 0.05;
  return Math.min(1, score + extension);
}
