/**
 * A plain setup page that drives the setup API (database test, seeding with progress, first admin).
 * The bundled admin UI (its own issue) replaces it with the full wizard; this one needs no build step.
 */
export function setupPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Set up your CMS</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#111}
fieldset{border:1px solid #ccc;border-radius:.5rem;margin:0 0 1.5rem;padding:1rem}
label{display:block;margin:.5rem 0}input,select{width:100%;padding:.4rem;font:inherit}
button{padding:.5rem 1rem;font:inherit;margin-top:.5rem}progress{width:100%}
#msg{min-height:1.5rem;color:#9a1c1c}
</style></head><body>
<h1>Set up your CMS</h1>
<p id="msg" role="status" aria-live="polite"></p>
<fieldset><legend>1. Database</legend>
<label>Type <select id="type"><option value="sqlite">SQLite (embedded)</option><option value="mariadb">MariaDB</option></select></label>
<label>Database (SQLite file name or MariaDB database) <input id="database" value="cms.sqlite"></label>
<label>Host <input id="host" value="127.0.0.1"></label><label>Port <input id="port" value="3306" inputmode="numeric"></label>
<label>User <input id="username" autocomplete="username"></label><label>Password <input id="password" type="password" autocomplete="off"></label>
<button id="test">Test connection</button> <button id="seed">Seed database</button>
<progress id="progress" max="100" value="0" aria-label="Seeding progress"></progress>
</fieldset>
<fieldset><legend>2. Administrator</legend>
<label>Site name <input id="siteName" value="My CMS"></label>
<label>Email <input id="email" type="email" autocomplete="email"></label>
<label>Password (at least 8 characters) <input id="adminPassword" type="password" autocomplete="new-password"></label>
<button id="complete">Create administrator</button>
</fieldset>
<script>
const $ = (id) => document.getElementById(id);
const say = (t) => { $('msg').textContent = t; };
const db = () => ({ type: $('type').value, database: $('database').value, host: $('host').value, port: Number($('port').value), username: $('username').value, password: $('password').value });
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.message || ('HTTP ' + res.status));
  return json.data;
}
$('test').onclick = async () => { try { const d = await post('/api/setup/test-db', db()); say('Connected. ' + d.warnings.join(' ')); } catch (e) { say(e.message); } };
$('seed').onclick = async () => {
  try {
    await post('/api/setup/seed-db', db());
    for (;;) {
      const h = await (await fetch('/api/system/health')).json();
      const s = h.data.setup || {};
      $('progress').value = s.progress || 0;
      if (s.error) { say(s.error); break; }
      if (s.seeded) { say('Database seeded. Now create the administrator.'); break; }
      await new Promise((r) => setTimeout(r, 300));
    }
  } catch (e) { say(e.message); }
};
$('complete').onclick = async () => {
  try { await post('/api/setup/complete', { email: $('email').value, password: $('adminPassword').value, siteName: $('siteName').value }); location.href = '/'; }
  catch (e) { say(e.message); }
};
</script></body></html>`;
}
