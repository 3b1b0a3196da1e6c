const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page browsers see while maintenance mode is on: self-contained (inline style, no scripts, images or fonts). */
export function maintenancePage(siteName: string | undefined, retryAfterSeconds: number, message?: string): string {
  const name = escapeHtml(siteName ?? 'This site');
  const minutes = Math.max(1, Math.round(retryAfterSeconds / 60));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${name} - down for maintenance</title>
<style>
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f6f7f9;color:#1f2933}
main{max-width:32rem;padding:2rem;text-align:center}
h1{font-size:1.5rem;margin:0 0 .75rem}
p{line-height:1.5;margin:0 0 .5rem;color:#52606d}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f3f4f6}p{color:#cbd5e1}}
</style>
</head>
<body>
<main>
<h1>${name} is down for maintenance</h1>
<p>${message ? escapeHtml(message) : 'We are doing some work on the site and will be back shortly.'}</p>
<p>Please try again in about ${minutes} minute${minutes === 1 ? '' : 's'}.</p>
</main>
</body>
</html>
`;
}
