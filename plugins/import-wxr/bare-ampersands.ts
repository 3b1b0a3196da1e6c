/**
 * Streams XML text and escapes bare `&` characters (an `&` that does not start a character or entity
 * reference, e.g. in an unescaped URL query string) as `&amp;`, outside CDATA sections and comments.
 * Hand-made WXR files often contain them; a strict parser would otherwise read everything up to the
 * next `;` as an entity name. Each repair is reported with its line, so the import degrades knowingly.
 * Worker-side, no kernel imports.
 */

const REFERENCE = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z_:\u00C0-\uFFFF][-A-Za-z0-9._:\u00B7-\uFFFF]*);/y;
/** An unfinished reference at the end of a chunk (decided once the next chunk arrives). */
const PARTIAL_REFERENCE = /^&[-#A-Za-z0-9._:\u00B7-\uFFFF]*$/;
const MAX_REFERENCE = 80;

export class BareAmpersandRepair {
  private carry = '';
  private state: 'text' | 'cdata' | 'comment' = 'text';
  private line = 1;

  constructor(private readonly onRepair: (line: number) => void) {}

  /** The repaired text of `chunk` (some of its end may be held back until the next call). */
  push(chunk: string): string {
    return this.run(this.carry + chunk, false);
  }

  /** The text held back, once the input has ended. */
  end(): string {
    return this.run(this.carry, true);
  }

  private run(s: string, final: boolean): string {
    this.carry = '';
    let out = '';
    let i = 0;
    const take = (to: number): void => {
      const part = s.slice(i, to);
      for (let n = part.indexOf('\n'); n >= 0; n = part.indexOf('\n', n + 1)) this.line++;
      out += part;
      i = to;
    };
    while (i < s.length) {
      if (this.state !== 'text') {
        const close = this.state === 'cdata' ? ']]>' : '-->';
        const at = s.indexOf(close, i);
        if (at < 0) {
          // Keep the last characters back: the closing marker may straddle two chunks.
          take(final ? s.length : Math.max(i, s.length - (close.length - 1)));
          this.carry = s.slice(i);
          return out;
        }
        take(at + close.length);
        this.state = 'text';
        continue;
      }
      const amp = s.indexOf('&', i);
      const lt = s.indexOf('<', i);
      const next = amp < 0 ? lt : lt < 0 ? amp : Math.min(amp, lt);
      if (next < 0) {
        take(s.length);
        break;
      }
      take(next);
      if (next === lt) {
        if (!final && s.length - next < 9) {
          this.carry = s.slice(next);
          return out;
        }
        if (s.startsWith('<![CDATA[', next)) {
          take(next + 9);
          this.state = 'cdata';
        } else if (s.startsWith('<!--', next)) {
          take(next + 4);
          this.state = 'comment';
        } else take(next + 1);
        continue;
      }
      REFERENCE.lastIndex = next;
      const ref = REFERENCE.exec(s);
      if (ref) {
        take(next + ref[0].length);
        continue;
      }
      const rest = s.slice(next);
      if (!final && rest.length < MAX_REFERENCE && PARTIAL_REFERENCE.test(rest)) {
        this.carry = rest;
        return out;
      }
      this.onRepair(this.line);
      out += '&amp;';
      i = next + 1;
    }
    return out;
  }
}
