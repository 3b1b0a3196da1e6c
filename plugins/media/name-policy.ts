import { extname } from 'node:path';
import { MediaTypeMismatchError } from './errors.js';

/**
 * Whether a file's own name may stay with the content it names. The name is never changed: when the
 * extension and the type detected from the bytes disagree, the item keeps the user's name and stores
 * the detected type, except where the disagreement is dangerous, which is refused (415
 * MEDIA_TYPE_MISMATCH, naming both):
 *
 * - an extension that makes a browser or an operating system run or render the file (HTML, SVG, XML,
 *   scripts, programs) on content that is not of that type: `notes.html` holding text would open as a
 *   web page once downloaded, `invoice.exe` holding a PDF would be started as a program; scripts
 *   (`.js`, `.sh`, `.php`, ...) are refused whatever they hold, as their type cannot be told from bytes;
 * - HTML, SVG or XML content (which can carry script) under an extension known to mean an inert type:
 *   `logo.png` holding an SVG, `page.txt` holding HTML.
 *
 * Other disagreements (`scan.pdf` holding a JPEG, `notes.png` holding text) keep the name and store the
 * detected type, which decides how the file is served; an unknown extension or none says nothing.
 */

/** Content that can run script when a browser renders it. */
const ACTIVE_CONTENT = new Set(['text/html', 'image/svg+xml', 'application/xml', 'text/xml', 'application/xhtml+xml']);

interface Dangerous {
  /** What the extension means, for the message. */
  means: string;
  /** Detected types that fit it (none for scripts: their type is never detected from bytes). */
  fits: readonly string[];
}

const XML_FITS = ['application/xml', 'text/xml', 'image/svg+xml', 'text/html', 'application/xhtml+xml'];
const dangerous = (exts: string[], means: string, fits: readonly string[] = []) => exts.map((e) => [e, { means, fits }] as const);

/** Extensions that make the file active or executable once opened. */
const DANGEROUS = new Map<string, Dangerous>([
  ...dangerous(['html', 'htm', 'shtml'], 'text/html', ['text/html', 'application/xhtml+xml']),
  ...dangerous(['xhtml', 'xht'], 'application/xhtml+xml', ['text/html', 'application/xhtml+xml', 'application/xml']),
  ...dangerous(['svg', 'svgz'], 'image/svg+xml', ['image/svg+xml']),
  ...dangerous(['xml', 'xsl', 'xslt', 'rss', 'atom'], 'application/xml', XML_FITS),
  ...dangerous(['mht', 'mhtml'], 'multipart/related (a saved web page)'),
  ...dangerous(['exe', 'dll', 'com', 'scr', 'cpl', 'sys', 'pif'], 'a Windows program (application/x-msdownload)', [
    'application/x-msdownload',
  ]),
  ...dangerous(['msi', 'msp'], 'a Windows installer (application/x-msi)', ['application/x-msi']),
  ...dangerous(['jar'], 'a Java program (application/java-archive)', ['application/java-archive']),
  ...dangerous(['apk'], 'an Android app (application/vnd.android.package-archive)', ['application/vnd.android.package-archive']),
  ...dangerous(['deb'], 'a Debian package (application/x-deb)', ['application/x-deb']),
  ...dangerous(['rpm'], 'an RPM package (application/x-rpm)', ['application/x-rpm']),
  ...dangerous(['dmg'], 'a macOS disk image (application/x-apple-diskimage)', ['application/x-apple-diskimage']),
  ...dangerous(
    [
      'js',
      'mjs',
      'cjs',
      'jse',
      'vbs',
      'vbe',
      'wsf',
      'wsh',
      'hta',
      'ps1',
      'psm1',
      'bat',
      'cmd',
      'sh',
      'bash',
      'zsh',
      'csh',
      'ksh',
      'command',
      'php',
      'php3',
      'php4',
      'php5',
      'php7',
      'phtml',
      'phar',
      'pl',
      'py',
      'pyw',
      'rb',
      'cgi',
      'asp',
      'aspx',
      'jsp',
      'lnk',
      'reg',
      'scf',
      'inf',
      'gadget',
      'msc',
      'app',
      'appimage',
      'run',
      'desktop',
      'applescript',
    ],
    'a script or program',
  ),
]);

/** Extensions known to mean an inert type (what they mean, for the message). */
const INERT: Record<string, string> = {};
const inert = (type: string, ...exts: string[]) => exts.forEach((e) => (INERT[e] = type));
inert('image/png', 'png');
inert('image/jpeg', 'jpg', 'jpeg', 'jpe', 'jfif');
inert('image/gif', 'gif');
inert('image/webp', 'webp');
inert('image/avif', 'avif');
inert('image/tiff', 'tif', 'tiff');
inert('image/bmp', 'bmp');
inert('image/x-icon', 'ico');
inert('image/heic', 'heic', 'heif');
inert('image/jxl', 'jxl');
inert('application/pdf', 'pdf');
inert('text/plain', 'txt', 'text', 'md', 'log', 'ini', 'cfg', 'conf', 'yaml', 'yml', 'toml');
inert('text/csv', 'csv');
inert('text/tab-separated-values', 'tsv');
inert('application/json', 'json');
inert('application/rtf', 'rtf');
inert('application/msword', 'doc');
inert('application/vnd.ms-excel', 'xls');
inert('application/vnd.ms-powerpoint', 'ppt');
inert('application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx');
inert('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx');
inert('application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx');
inert('application/vnd.oasis.opendocument.text', 'odt');
inert('application/vnd.oasis.opendocument.spreadsheet', 'ods');
inert('application/vnd.oasis.opendocument.presentation', 'odp');
inert('audio/mpeg', 'mp3', 'mpga');
inert('audio/wav', 'wav');
inert('audio/ogg', 'ogg', 'oga', 'opus');
inert('audio/flac', 'flac');
inert('audio/mp4', 'm4a');
inert('audio/aac', 'aac');
inert('video/mp4', 'mp4', 'm4v');
inert('video/webm', 'webm');
inert('video/quicktime', 'mov', 'qt');
inert('video/x-msvideo', 'avi');
inert('video/x-matroska', 'mkv');
inert('video/ogg', 'ogv');
inert('application/zip', 'zip');
inert('application/gzip', 'gz');
inert('application/x-tar', 'tar');
inert('font/woff', 'woff');
inert('font/woff2', 'woff2');
inert('font/ttf', 'ttf');
inert('font/otf', 'otf');

/** The lower-case extension of a name (`Photo.PNG` -> `png`), or '' without one. */
export function extensionOf(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

/** Why this name may not carry content of this type, or null when it may. */
export function nameConflict(name: string, mimeType: string): string | null {
  const ext = extensionOf(name);
  if (!ext) return null;
  const type = mimeType.toLowerCase();
  const risky = DANGEROUS.get(ext);
  if (risky) {
    if (risky.fits.includes(type)) return null;
    return `The file '${name}' is named as ${risky.means} (.${ext}), but its content is ${type}; a file with this extension must be of that type (rename it to match its content)`;
  }
  const means = INERT[ext];
  if (means && ACTIVE_CONTENT.has(type) && means !== type) {
    return `The file '${name}' is named as ${means} (.${ext}), but its content is ${type}, which can carry script; upload it under its own extension (for example .${type === 'image/svg+xml' ? 'svg' : type === 'text/html' ? 'html' : 'xml'})`;
  }
  return null;
}

/** Refuses (415 MEDIA_TYPE_MISMATCH) a name whose extension contradicts its content dangerously. */
export function assertNameFitsContent(name: string, mimeType: string): void {
  const conflict = nameConflict(name, mimeType);
  if (conflict) throw new MediaTypeMismatchError(conflict, extensionOf(name), mimeType.toLowerCase());
}
