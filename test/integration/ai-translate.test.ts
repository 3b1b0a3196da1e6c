import { expect } from 'chai';
import { rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createKernel, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { as, dataOf, POSTS } from '../helpers/content.js';
import { fixturePlugin, sqliteKernelConfig, tempDir, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { LoopbackServer, requestBody } from '../helpers/loopback-server.js';

const LIBRE_KEY = 'lt-key-4f1c9a7e2b';
const OPENAI_KEY = 'sk-test-9d8c7b6a5f4e3d2c1b0a';
const DEEPL_KEY = 'deepl-key-0a1b2c3d:fx';
const SECRETS = [LIBRE_KEY, OPENAI_KEY, DEEPL_KEY];

/** What the fake "translates" to: the target in brackets before the text, so order and target are visible. */
const fake = (s: string, target: string) => `[${target}] ${s}`;

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  json: any;
}

type Mode = 'ok' | 'reject-key' | 'hang' | 'wrong-count' | 'malformed' | 'echo-key' | 'fenced' | 'cut-off' | 'not-json';

/**
 * One loopback server that speaks the three providers' protocols as the real APIs do: OpenAI chat
 * completions (Bearer key, the strings as a JSON array in the user message, the answer in
 * choices[0].message.content), LibreTranslate (api_key in the body, q an array, translatedText) and
 * DeepL (DeepL-Auth-Key header, text and target_lang, translations[].text). It checks the key of each
 * and refuses a wrong one like the real service; `mode` makes it misbehave.
 */
class FakeProviders extends LoopbackServer<Received> {
  readonly received = this.log;
  mode: Mode = 'ok';

  override reset(): void {
    super.reset();
    this.mode = 'ok';
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let json: any = null;
    try {
      json = JSON.parse((await requestBody(req)).toString('utf8'));
    } catch {
      json = null;
    }
    const path = (req.url ?? '').split('?')[0]!;
    this.received.push({ path, headers: req.headers, json });
    if (this.mode === 'hang') return; // never answers (the connection is closed when the server closes)
    if (this.mode === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>');
    if (req.method !== 'POST') return this.send(res, 405, { error: 'Method Not Allowed' });
    if (path === '/v1/chat/completions') return this.openai(req, json, res);
    if (path === '/translate') return this.libre(json, res);
    if (path === '/v2/translate') return this.deepl(req, json, res);
    this.send(res, 404, { error: 'Not Found' });
  }

  private openai(req: IncomingMessage, json: any, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${OPENAI_KEY}` || this.mode === 'reject-key')
      return this.send(res, 401, {
        error: {
          message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7, 12)}****`,
          type: 'invalid_request_error',
        },
      });
    const [system, user] = Array.isArray(json?.messages) ? json.messages : [];
    if (typeof json?.model !== 'string' || system?.role !== 'system' || user?.role !== 'user')
      return this.send(res, 400, { error: { message: 'messages: expected a system and a user message' } });
    const lang = /into the language with the code '([^']+)'/.exec(system.content)?.[1] ?? '?';
    const strings: string[] = JSON.parse(user.content);
    let translated: string[] = strings.map((s) => fake(s, lang));
    if (this.mode === 'wrong-count') translated = translated.slice(1);
    let content = JSON.stringify(translated);
    if (this.mode === 'malformed') content = `Sure! Here are the translations: ${translated.join(', ')}`;
    if (this.mode === 'fenced') content = `\`\`\`json\n${content}\n\`\`\``;
    this.send(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: json.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: this.mode === 'cut-off' ? 'length' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  }

  private libre(json: any, res: ServerResponse): void {
    if (this.mode === 'echo-key') return this.send(res, 500, { error: `backend failed for key ${json?.api_key}` });
    if (json?.api_key !== LIBRE_KEY) return this.send(res, 403, { error: 'Invalid API key' });
    if (json.target === 'xx') return this.send(res, 400, { error: 'xx is not supported' });
    const q: string[] = Array.isArray(json.q) ? json.q : [json.q];
    let translatedText = q.map((s) => fake(s, json.target));
    if (this.mode === 'wrong-count') translatedText = translatedText.slice(1);
    this.send(res, 200, { translatedText });
  }

  private deepl(req: IncomingMessage, json: any, res: ServerResponse): void {
    if (req.headers.authorization !== `DeepL-Auth-Key ${DEEPL_KEY}`) return this.send(res, 403, { message: 'Wrong endpoint or key' });
    if (!Array.isArray(json?.text) || typeof json.target_lang !== 'string')
      return this.send(res, 400, { message: "Value for 'text' not supported." });
    this.send(res, 200, {
      translations: json.text.map((s: string) => ({ detected_source_language: 'EN', text: fake(s, json.target_lang) })),
    });
  }
}

describe('ai-translate: POST /api/ai/translate', function () {
  this.timeout(60_000);
  const providers = new FakeProviders();
  /** Every response body the tests read, to look for the keys afterwards. */
  const bodies: string[] = [];

  async function read(res: TestResponse): Promise<{ status: number; body: any }> {
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, body: JSON.parse(text) };
  }

  before(async function () {
    await providers.start();
  });
  after(async function () {
    await providers.close();
  });
  beforeEach(function () {
    providers.reset();
  });
  /** No key of a provider in the log text nor in any answer read so far. */
  function expectNoKeys(text: string): void {
    for (const secret of SECRETS) {
      expect(text).not.to.include(secret);
      for (const body of bodies) expect(body).not.to.include(secret);
    }
  }

  describe('without a configured provider', function () {
    const t = useTestKernel({ plugins: [fixturePlugin('test-identity')] });

    it('answers 503 TRANSLATION_UNAVAILABLE and says so in the providers list', async function () {
      const { status, body } = await read(await as(t, 'admin').post('/api/ai/translate', { strings: ['Hello'], target: 'de' }));
      expect(status).to.equal(503);
      expect(body).to.include({ success: false, error: 'TRANSLATION_UNAVAILABLE' });
      expect(body.message).to.match(/no translation provider/i);
      const list = await dataOf(await as(t, 'admin').get('/api/ai/translate/providers'));
      expect(list).to.deep.equal({
        available: false,
        active: null,
        providers: [
          { id: 'openai', label: 'OpenAI-compatible chat completions', configured: false },
          { id: 'libretranslate', label: 'LibreTranslate', configured: false },
          { id: 'deepl', label: 'DeepL', configured: false },
        ],
      });
    });

    it('needs the ai:translate permission (editors and guests are refused) and a valid body', async function () {
      const editor = await read(await as(t, 'editor').post('/api/ai/translate', { strings: ['Hello'], target: 'de' }));
      expect(editor.status).to.equal(403);
      expect(editor.body.error).to.equal('FORBIDDEN');
      const guest = await read(await t.request('/api/ai/translate', { method: 'POST', json: { strings: ['Hello'], target: 'de' } }));
      expect(guest.status).to.equal(401);
      for (const bad of [
        { strings: [], target: 'de' },
        { strings: ['a'], target: 'not a language' },
        { strings: ['a'] },
        { target: 'de' },
      ]) {
        const res = await read(await as(t, 'admin').post('/api/ai/translate', bad));
        expect(res.status, JSON.stringify(bad)).to.equal(400);
        expect(res.body.error).to.equal('VALIDATION_ERROR');
      }
    });

    it('documents the route in the OpenAPI document with its permission', async function () {
      const doc = await (await t.request('/api/openapi.json')).json();
      const op = doc.paths['/api/ai/translate']?.post;
      expect(op, 'POST /api/ai/translate in the OpenAPI document').to.be.an('object');
      expect(op['x-permission']).to.equal('ai:translate');
    });
  });

  describe('LibreTranslate, configured from the environment', function () {
    let kernel: Kernel;
    let dataDir: string;
    const logs: string[] = [];
    const admin = (json: unknown) =>
      fetch(`${kernel.url}/api/ai/translate`, {
        method: 'POST',
        headers: { 'x-test-identity': 'admin', 'content-type': 'application/json' },
        body: JSON.stringify(json),
      }) as Promise<TestResponse>;

    before(async function () {
      dataDir = tempDir();
      const config = sqliteKernelConfig(dataDir, {
        logLevel: 'debug',
        pool: { maxThreads: 2 },
        plugins: {
          paths: [fixturePlugin('test-identity')],
          disabled: ['setup'],
          options: { 'ai-translate': { maxStrings: 5, maxCharacters: 200 } },
        },
      });
      const env = {
        AI_TRANSLATE_LIBRETRANSLATE_URL: `${providers.url}/`,
        AI_TRANSLATE_LIBRETRANSLATE_API_KEY: LIBRE_KEY,
        AI_TRANSLATE_TIMEOUT_MS: '400',
      };
      kernel = createKernel({ config, env, logger: createLogger('debug', { write: (line: string) => void logs.push(line) }) });
      await kernel.start();
    });
    after(async function () {
      await kernel?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('translates strings in order, sending them as LibreTranslate expects; blank strings are not sent', async function () {
      const { status, body } = await read(await admin({ strings: ['Hello', '  ', 'Good morning'], target: 'de' }));
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data).to.deep.equal({
        provider: 'libretranslate',
        source: null,
        target: 'de',
        translations: ['[de] Hello', '  ', '[de] Good morning'],
      });
      const [call] = providers.of('/translate');
      expect(call!.json).to.deep.equal({ q: ['Hello', 'Good morning'], source: 'auto', target: 'de', format: 'text', api_key: LIBRE_KEY });

      const html = await read(await admin({ strings: ['<p>Hi</p>'], source: 'en', target: 'fr', format: 'html' }));
      expect(html.body.data.translations).to.deep.equal(['[fr] <p>Hi</p>']);
      expect(providers.of('/translate')[1]!.json).to.include({ source: 'en', target: 'fr', format: 'html' });
    });

    it('lists LibreTranslate as the active provider, without its address or key', async function () {
      const res = await fetch(`${kernel.url}/api/ai/translate/providers`, { headers: { 'x-test-identity': 'admin' } });
      const { body } = await read(res as TestResponse);
      expect(body.data.available).to.equal(true);
      expect(body.data.active).to.equal('libretranslate');
      expect(JSON.stringify(body)).not.to.include(providers.url);
    });

    it('refuses too many strings (400) and too many characters (413) without calling the provider', async function () {
      const many = await read(await admin({ strings: ['a', 'b', 'c', 'd', 'e', 'f'], target: 'de' }));
      expect(many.status).to.equal(400);
      expect(many.body).to.include({ error: 'TRANSLATION_TOO_MANY_STRINGS', limit: 5 });
      const long = await read(await admin({ strings: ['x'.repeat(150), 'y'.repeat(60)], target: 'de' }));
      expect(long.status).to.equal(413);
      expect(long.body).to.include({ error: 'TRANSLATION_TOO_LARGE', limit: 200 });
      expect(providers.received).to.have.length(0);
    });

    it("passes the provider's refusal on as 502 TRANSLATION_PROVIDER_ERROR, with its reason", async function () {
      const { status, body } = await read(await admin({ strings: ['Hello'], target: 'xx' }));
      expect(status).to.equal(502);
      expect(body.error).to.equal('TRANSLATION_PROVIDER_ERROR');
      expect(body.message).to.include("'libretranslate'").and.to.include('HTTP 400').and.to.include('xx is not supported');
    });

    it('never passes a key on when the provider echoes it in an error', async function () {
      providers.mode = 'echo-key';
      const { status, body } = await read(await admin({ strings: ['Hello'], target: 'de' }));
      expect(status).to.equal(502);
      expect(body.error).to.equal('TRANSLATION_PROVIDER_ERROR');
      expect(body.message).to.include('[redacted]');
      expect(JSON.stringify(body)).not.to.include(LIBRE_KEY);
    });

    it('refuses an answer with the wrong number of strings, or one that is not JSON, with 502 TRANSLATION_BAD_RESPONSE', async function () {
      providers.mode = 'wrong-count';
      const wrong = await read(await admin({ strings: ['One', 'Two'], target: 'de' }));
      expect(wrong.status).to.equal(502);
      expect(wrong.body.error).to.equal('TRANSLATION_BAD_RESPONSE');
      expect(wrong.body.message).to.include('expected 2 translated strings, got 1 items');
      providers.mode = 'not-json';
      const html = await read(await admin({ strings: ['One'], target: 'de' }));
      expect(html.status).to.equal(502);
      expect(html.body.error).to.equal('TRANSLATION_BAD_RESPONSE');
    });

    it('answers 504 TRANSLATION_TIMEOUT when the provider does not answer within the timeout', async function () {
      providers.mode = 'hang';
      const { status, body } = await read(await admin({ strings: ['Hello'], target: 'de' }));
      expect(status).to.equal(504);
      expect(body.error).to.equal('TRANSLATION_TIMEOUT');
      expect(body.message).to.include("'libretranslate'").and.to.include('0.4 s');
      expect(providers.of('/translate')).to.have.length(1);
    });

    describe('an entry', function () {
      let entryId: string;
      const req = (identity: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
        fetch(`${kernel.url}${path}`, {
          ...init,
          headers: { 'x-test-identity': identity, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
        }) as Promise<TestResponse>;

      before(async function () {
        await dataOf(await req('admin', '/api/collections', { method: 'POST', json: POSTS }), 201);
        const created = await dataOf(
          await req('admin', '/api/collections/posts', {
            method: 'POST',
            json: { title: 'Hello world', body: '<p>A <strong>short</strong> post</p>', views: 3, meta: { a: 1 } },
          }),
          201,
        );
        entryId = created._id;
      });

      it('translates its text and richtext fields (richtext as HTML) and leaves the entry as it was', async function () {
        const { status, body } = await read(await admin({ collection: 'posts', entryId, target: 'de' }));
        expect(status, JSON.stringify(body)).to.equal(200);
        expect(body.data).to.deep.equal({
          provider: 'libretranslate',
          source: null,
          target: 'de',
          collection: 'posts',
          entryId,
          fields: { title: '[de] Hello world', body: '[de] <p>A <strong>short</strong> post</p>' },
          saved: false,
          version: 1,
        });
        const calls = providers.of('/translate').map((c) => ({ q: c.json.q, format: c.json.format }));
        expect(calls).to.deep.equal([
          { q: ['Hello world'], format: 'text' },
          { q: ['<p>A <strong>short</strong> post</p>'], format: 'html' },
        ]);
        const entry = await dataOf(await req('admin', `/api/collections/posts/${entryId}`));
        expect(entry).to.include({ title: 'Hello world', version: 1 });
      });

      it('translates only the listed fields, and refuses a field that is not text', async function () {
        const only = await read(await admin({ collection: 'posts', entryId, target: 'fr', fields: ['title'] }));
        expect(only.body.data.fields).to.deep.equal({ title: '[fr] Hello world' });
        const bad = await read(await admin({ collection: 'posts', entryId, target: 'fr', fields: ['title', 'views'] }));
        expect(bad.status).to.equal(400);
        expect(bad.body.error).to.equal('VALIDATION_ERROR');
        expect(bad.body.issues).to.deep.equal([
          { path: 'fields.1', message: "'views' is not a text, markdown or richtext field of 'posts'" },
        ]);
      });

      it('saves the translation into the entry with save: true (a new version)', async function () {
        const { status, body } = await read(await admin({ collection: 'posts', entryId, target: 'es', save: true }));
        expect(status, JSON.stringify(body)).to.equal(200);
        expect(body.data).to.include({ saved: true, version: 2 });
        const entry = await dataOf(await req('admin', `/api/collections/posts/${entryId}`));
        expect(entry).to.include({ title: '[es] Hello world', body: '[es] <p>A <strong>short</strong> post</p>', views: 3, version: 2 });
      });

      it('with content locales: reads fromLocale, translates the localized fields only, saves into intoLocale as a draft', async function () {
        await dataOf(await req('admin', '/api/locales', { method: 'POST', json: { code: 'de' } }), 201);
        await dataOf(
          await req('admin', '/api/collections', {
            method: 'POST',
            json: {
              name: 'pages',
              fields: [
                { name: 'title', type: 'text', localized: true },
                { name: 'code', type: 'text' },
              ],
            },
          }),
          201,
        );
        const page = await dataOf(
          await req('admin', '/api/collections/pages', {
            method: 'POST',
            json: { title: 'Opening hours', code: 'OH-1', status: 'published' },
          }),
          201,
        );
        providers.reset();
        const { status, body } = await read(
          await admin({ collection: 'pages', entryId: page._id, target: 'de', source: 'en', intoLocale: 'de', save: true }),
        );
        expect(status, JSON.stringify(body)).to.equal(200);
        expect(body.data).to.include({ saved: true });
        expect(body.data.fields).to.deep.equal({ title: '[de] Opening hours' });
        expect(providers.of('/translate').map((c) => c.json.q)).to.deep.equal([['Opening hours']]);
        const german = await dataOf(await req('admin', `/api/collections/pages/${page._id}?locale=de`));
        expect(german).to.include({ title: '[de] Opening hours', code: 'OH-1', status: 'draft', _locale: 'de' });
        const english = await dataOf(await req('admin', `/api/collections/pages/${page._id}`));
        expect(english).to.include({ title: 'Opening hours', status: 'published' });
        // A shared field cannot be translated into a locale; an unknown locale is 400.
        const shared = await read(
          await admin({ collection: 'pages', entryId: page._id, target: 'de', intoLocale: 'de', fields: ['code'] }),
        );
        expect(shared.status).to.equal(400);
        expect(shared.body.issues[0].message).to.contain('not a localized text');
        providers.reset();
        const unknown = await read(await admin({ collection: 'pages', entryId: page._id, target: 'fr', intoLocale: 'fr', save: true }));
        expect(unknown.status).to.equal(400);
        expect(unknown.body.issues).to.deep.equal([{ path: 'intoLocale', message: 'not a locale of this installation' }]);
        expect(providers.received).to.have.length(0);
      });

      it('answers 404 for an unknown entry or collection, and nothing is sent', async function () {
        const missing = await read(await admin({ collection: 'posts', entryId: '00000000-0000-4000-8000-000000000000', target: 'de' }));
        expect(missing.status).to.equal(404);
        expect(missing.body.error).to.equal('ENTRY_NOT_FOUND');
        const noCollection = await read(await admin({ collection: 'nope', entryId, target: 'de' }));
        expect(noCollection.status).to.equal(404);
        expect(noCollection.body.error).to.equal('COLLECTION_NOT_FOUND');
        expect(providers.received).to.have.length(0);
      });
    });

    // Last: after the entry tests too (mocha runs a suite's own tests before its nested suites).
    describe('afterwards', function () {
      it('never writes the key into a log line or an answer', function () {
        const text = logs.join('\n');
        expect(text, 'the translations were logged').to.include('"msg":"translated"');
        expect(text).to.include('"msg":"translation failed"');
        expectNoKeys(text);
      });
    });
  });

  describe('an OpenAI-compatible API, chosen over a configured LibreTranslate', function () {
    // Options read at boot: the fake providers' URL is known once the outer before hook has run.
    const t = useTestKernel(() => ({
      plugins: [fixturePlugin('test-identity')],
      captureLogs: 'debug',
      config: {
        plugins: {
          options: {
            'ai-translate': {
              provider: 'openai',
              timeoutMs: 5000,
              providers: {
                openai: { url: providers.url, apiKey: OPENAI_KEY, model: 'test-model' },
                libretranslate: { url: providers.url, apiKey: LIBRE_KEY },
              },
            },
          },
        },
      },
    }));
    const post = (json: unknown) => as(t, 'admin').post('/api/ai/translate', json);

    it('sends the strings as a JSON array with instructions and reads the array from the answer', async function () {
      const { status, body } = await read(await post({ strings: ['Hello', 'Thank you'], source: 'en', target: 'pt-BR' }));
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data).to.deep.equal({
        provider: 'openai',
        source: 'en',
        target: 'pt-BR',
        translations: ['[pt-BR] Hello', '[pt-BR] Thank you'],
      });
      const [call] = providers.of('/v1/chat/completions');
      expect(call!.headers.authorization).to.equal(`Bearer ${OPENAI_KEY}`);
      expect(call!.json.model).to.equal('test-model');
      expect(call!.json.messages[1]).to.deep.equal({ role: 'user', content: '["Hello","Thank you"]' });
      expect(call!.json.messages[0].content).to.include("'en'").and.to.include("'pt-BR'").and.to.include('JSON array of exactly 2');
      expect(providers.of('/translate'), 'LibreTranslate is not used').to.have.length(0);
      const list = await dataOf(await as(t, 'admin').get('/api/ai/translate/providers'));
      expect(list.active).to.equal('openai');
      expect(list.providers.filter((p: any) => p.configured).map((p: any) => p.id)).to.deep.equal(['openai', 'libretranslate']);
    });

    it('accepts an array in a ```json fence', async function () {
      providers.mode = 'fenced';
      const { body } = await read(await post({ strings: ['Hello'], target: 'it' }));
      expect(body.data.translations).to.deep.equal(['[it] Hello']);
    });

    it('refuses prose, a wrong count or a cut-off answer with 502 TRANSLATION_BAD_RESPONSE', async function () {
      for (const mode of ['malformed', 'wrong-count', 'cut-off'] as const) {
        providers.mode = mode;
        const { status, body } = await read(await post({ strings: ['Hello', 'World'], target: 'de' }));
        expect(status, mode).to.equal(502);
        expect(body.error, mode).to.equal('TRANSLATION_BAD_RESPONSE');
        expect(body.message, mode).to.include("'openai'");
      }
    });

    it("answers 502 TRANSLATION_PROVIDER_ERROR when the key is refused, without the provider's text (it quotes the key)", async function () {
      providers.mode = 'reject-key';
      const { status, body } = await read(await post({ strings: ['Hello'], target: 'de' }));
      expect(status).to.equal(502);
      expect(body.error).to.equal('TRANSLATION_PROVIDER_ERROR');
      expect(body.message).to.include('refused the credentials (HTTP 401)');
      expect(body.message).not.to.include(OPENAI_KEY.slice(0, 5));
    });

    it('never writes the keys into a log line or an answer', function () {
      const text = t.logs.join('\n');
      expect(text).to.include('"msg":"translated"');
      expectNoKeys(text);
    });
  });

  describe('DeepL', function () {
    // Options read at boot: the fake providers' URL is known once the outer before hook has run.
    const t = useTestKernel(() => ({
      plugins: [fixturePlugin('test-identity')],
      config: {
        rateLimit: { enabled: true },
        plugins: {
          options: {
            'ai-translate': { rateLimitPerMinute: 3, providers: { deepl: { url: `${providers.url}/v2`, apiKey: DEEPL_KEY } } },
          },
        },
      },
    }));

    it('sends the key in the DeepL-Auth-Key header and the languages as DeepL names them', async function () {
      const { status, body } = await read(
        await as(t, 'admin').post('/api/ai/translate', { strings: ['<b>Hi</b>'], source: 'en-GB', target: 'de', format: 'html' }),
      );
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data).to.include({ provider: 'deepl' });
      expect(body.data.translations).to.deep.equal(['[DE] <b>Hi</b>']);
      const [call] = providers.of('/v2/translate');
      expect(call!.headers.authorization).to.equal(`DeepL-Auth-Key ${DEEPL_KEY}`);
      expect(call!.json).to.deep.equal({ text: ['<b>Hi</b>'], target_lang: 'DE', source_lang: 'EN', tag_handling: 'html' });
    });

    it('limits the requests per client with the configured rate (429 RATE_LIMITED)', async function () {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await read(await as(t, 'admin').post('/api/ai/translate', { strings: ['Hi'], target: 'de' }))).status);
      // The first test used one of the three.
      expect(statuses).to.deep.equal([200, 200, 429, 429]);
    });
  });
});
