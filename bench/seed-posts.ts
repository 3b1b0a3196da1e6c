/** What the list cases share (bench/run.ts case 2, bench/list-auth.ts): the kernel's env and 1,000 seeded posts. */

/** The env of a bench kernel on SQLite with headless setup (so routes are served, not redirected to /setup). */
export function benchKernelEnv(dataDir: string): Record<string, string> {
  return {
    CMS_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CMS_RATE_LIMIT_ENABLED: 'false',
    REDIS_URL: '',
    DB_TYPE: 'sqlite',
    CMS_SETUP_ADMIN_EMAIL: 'bench@example.com',
    CMS_SETUP_ADMIN_PASSWORD: 'benchmark password',
  };
}

/** The 100 published posts of seed batch `batch`, the same in this CMS and in Directus (`dateField` names the date). */
export function postBatch(batch: number, dateField: string): Array<Record<string, unknown>> {
  return Array.from({ length: 100 }, (_, i) => ({
    title: `Post ${batch * 100 + i}`,
    excerpt: 'A short summary of the post.',
    body: '<p>'.concat('Lorem ipsum dolor sit amet. '.repeat(20), '</p>'),
    tags: ['bench', `batch-${batch}`],
    [dateField]: new Date(Date.UTC(2026, 0, 1) + (batch * 100 + i) * 3600000).toISOString(),
    status: 'published',
  }));
}

/** Signs in as the setup admin, creates 1,000 published posts and a website token; resolves both credentials. */
export async function seedPosts(url: string): Promise<{ token: string; cookie: string }> {
  const call = async (path: string, init: { method?: string; cookie?: string; json?: unknown }) => {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...(init.cookie ? { cookie: init.cookie } : {}) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const login = await call('/api/user/login', { json: { email: 'bench@example.com', password: 'benchmark password' } });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;
  // Setup seeds the posts collection (title, excerpt, body, cover, tags, publishedAt).
  for (let batch = 0; batch < 10; batch++) {
    const entries = postBatch(batch, 'publishedAt');
    await call('/api/collections/posts/batch', { cookie, json: { entries } });
  }
  const token = await call('/api/website-tokens', { cookie, json: { name: 'bench' } });
  return { token: ((await token.json()) as { data: { token: string } }).data.token, cookie };
}
