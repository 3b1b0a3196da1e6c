import sqlite3 from 'sqlite3';
const db = new sqlite3.Database(process.argv[2]);
const all = (sql, p=[]) => new Promise((res, rej) => db.all(sql, p, (e, r) => e ? rej(e) : res(r)));
if (process.env.CS) await all('PRAGMA cache_size=' + process.env.CS); if (process.env.MM) await all('PRAGMA mmap_size=' + process.env.MM);
const table = (await all(`SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'cms_c_items%'`))[0].name;
const queries = JSON.parse(process.argv[3]);
for (const [label, sql, params] of queries) {
  const s = sql.replaceAll('$T', '`'+table+'`');
  const plan = await all('EXPLAIN QUERY PLAN ' + s, params);
  const times = [];
  let r;
  for (let i = 0; i < 3; i++) { const t = performance.now(); r = await all(s, params); times.push(performance.now() - t); }
  console.log(label, times.map(t=>t.toFixed(1)).join(' '), 'rows', r.length, JSON.stringify(r[0]).slice(0,80));
  for (const p of plan) console.log('   ', p.detail);
}
