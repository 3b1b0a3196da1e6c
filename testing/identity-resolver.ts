import { expect } from 'chai';
import Koa, { type Context } from 'koa';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Identity } from '../kernel/http/identity.js';
import type { IdentityResolver } from '../kernel/registries/index.js';
import type { ContractKernel } from './contract-kernel.js';

const KINDS = ['guest', 'user', 'apiKey', 'websiteToken'];

type Headers = Record<string, string>;

const GARBAGE: Headers[] = [
  ...[
    'Bearer',
    'Bearer ',
    'Bearer x',
    `Bearer sck_${'A'.repeat(43)}`,
    `Bearer ${'a'.repeat(4000)}`,
    'Basic dXNlcjpwYXNz',
    'bearer \u00ff\u00fe',
    'Bearer a b',
    'Token abc',
    "Bearer ' OR 1=1 --",
    'Bearer sck_../../etc/passwd',
    'Bearer %00',
    'Bearer {"$ne":null}',
  ].map((authorization) => ({ authorization })),
  ...[
    'session=',
    'session=garbage',
    `session=${'x'.repeat(4000)}`,
    'session=%',
    'session=%E0%A4%A',
    'session="quoted"',
    'session=a; session=b',
    'session=../../../etc/passwd',
    "session=' OR '1'='1",
    'session=\u00e9\u00ff',
    'session',
    '=; ; ;=',
    'pending2fa=garbage',
  ].map((cookie) => ({ cookie })),
  ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'Admin', 'admin\u00a0', 'x'.repeat(1000)].map((role) => ({
    'x-test-identity': role,
  })),
  { 'x-test-identity': '__proto__', 'x-test-tenant': '__proto__' },
  ...['x'.repeat(300), '[::1', 'evil.example.com:99999', '..', '\u00ff.example'].map((host) => ({ host })),
  { authorization: 'Bearer nope', cookie: 'session=nope', 'x-test-identity': 'nobody ', host: '[' },
];

/** A real Koa context for a GET with these headers, in a fresh request scope, as the kernel builds it. */
function contextFor(t: Pick<ContractKernel, 'kernel'>, headers: Headers): { ctx: Context; dispose(): Promise<void> } {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/api/dashboard/widgets';
  req.headers = { host: '127.0.0.1', ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
  const res = new ServerResponse(req);
  const ctx = new Koa().createContext(req, res) as Context;
  const scope = t.kernel.container.createScope();
  ctx.state.scope = scope;
  ctx.state.logger = t.kernel.logger;
  ctx.state.requestId = 'identity-resolver-contract';
  return { ctx, dispose: () => scope.dispose() };
}

type Outcome = { identity: Identity | null } | { error: Error & { status?: number; code?: string; expose?: boolean } };

async function run(t: Pick<ContractKernel, 'kernel'>, resolver: IdentityResolver, headers: Headers): Promise<Outcome> {
  const { ctx, dispose } = contextFor(t, headers);
  try {
    return { identity: await resolver.resolve(ctx) };
  } catch (err) {
    return { error: err as Error };
  } finally {
    await dispose();
  }
}

/** Problems with an identity's shape, or []. */
function malformed(identity: Identity): string[] {
  const problems: string[] = [];
  if (!KINDS.includes(identity.kind)) problems.push(`kind ${String(identity.kind)}`);
  if (identity.userId !== null && (typeof identity.userId !== 'string' || identity.userId === ''))
    problems.push(`userId ${String(identity.userId)}`);
  if ((identity.kind === 'guest') !== (identity.userId === null)) problems.push('a guest has no userId, and only a guest');
  if (typeof identity.role !== 'string' || identity.role === '') problems.push(`role ${String(identity.role)}`);
  if (!Array.isArray(identity.permissions) || !identity.permissions.every((p) => typeof p === 'string'))
    problems.push('permissions is not an array of strings');
  if (typeof identity.tenantId !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(identity.tenantId))
    problems.push(`tenantId ${String(identity.tenantId)}`);
  return problems;
}

const show = (headers: Headers) => JSON.stringify(headers).slice(0, 160);

/** One valid request per kind of credential the kernel's resolvers recognise. */
export interface CredentialSample {
  kind: string;
  headers: Headers;
}

export interface IdentityResolverContractOptions {
  /** A kernel with every identity resolver under test (and the dashboard plugin, for the HTTP checks). */
  t: ContractKernel;
  /**
   * One valid request per kind of credential, read once the kernel has booted: every resolver but the guest
   * fallback must recognise one of them (the shipped ones: a session cookie, an API key, x-test-identity).
   */
  samples(): CredentialSample[];
}

/**
 * Registers the identity resolver contract's tests in the calling suite, against every resolver the
 * kernel's identityResolvers registry holds, each one called directly with a real Koa context (inside a
 * request scope, as the kernel calls it) and, for garbage, over HTTP too:
 * - a request without credentials is answered by exactly one resolver, the guest fallback, which runs
 *   last and answers a guest identity; every other resolver answers null;
 * - a request carrying one kind of credential (a sample) is recognised by exactly one non-fallback
 *   resolver, the others answer null, and every non-fallback resolver recognises one of the samples;
 * - garbage credentials never make a resolver throw, except the documented 401 refusal
 *   (AUTHENTICATION_REQUIRED) of a bearer value that matches nothing; a non-fallback resolver answers
 *   them null, the fallback a guest; over HTTP they never get a 5xx nor a protected route;
 * - every identity answered is well formed (kind, userId, role, permissions, tenantId).
 * Needs mocha and chai (dev dependencies).
 */
export function identityResolverContract(options: IdentityResolverContractOptions): void {
  const { t } = options;
  const state = {} as ResolverState;
  before(() => void (state.resolvers = [...t.kernel.registries.identityResolvers.list()].sort((a, b) => a.priority - b.priority)));

  it('resolvers have unique ids and numeric priorities', function () {
    const { resolvers } = state;
    expect(resolvers.length).to.be.greaterThan(1);
    expect(new Set(resolvers.map((r) => r.id)).size).to.equal(resolvers.length);
    for (const r of resolvers) expect(Number.isFinite(r.priority), `${r.id} priority`).to.equal(true);
  });
  it('a request without credentials: only the guest fallback, the last resolver, answers, with a guest', () => answersGuests(t, state));
  it('each kind of credential is recognised by exactly one resolver; the others answer null', async function () {
    if (!state.fallback) this.skip();
    await recognisesSamples(t, state, options.samples());
  });
  it('garbage credentials: null (or the documented 401 refusal), a guest from the fallback, never another error', async function () {
    if (!state.fallback) this.skip();
    await refusesGarbage(t, state);
  });
  it('garbage credentials over HTTP: never a 5xx, never a protected route, the error envelope when refused', () => garbageOverHttp(t));
}

interface ResolverState {
  /** By priority, read once the kernel has booted. */
  resolvers: IdentityResolver[];
  /** The guest fallback, found by the test of a request without credentials. */
  fallback?: IdentityResolver;
}

async function answersGuests(t: ContractKernel, state: ResolverState): Promise<void> {
  const answered: string[] = [];
  for (const r of state.resolvers) {
    const outcome = await run(t, r, {});
    if ('error' in outcome) expect.fail(`${r.id} threw on a request without credentials: ${outcome.error.stack}`);
    if (outcome.identity) {
      answered.push(r.id);
      expect(malformed(outcome.identity), r.id).to.deep.equal([]);
      expect(outcome.identity, r.id).to.include({ kind: 'guest', userId: null, role: 'guest', tenantId: 'default' });
    }
  }
  expect(answered, 'resolvers answering a request without credentials').to.have.lengthOf(1);
  state.fallback = state.resolvers.find((r) => r.id === answered[0])!;
  expect(state.resolvers.at(-1)!.id, 'the guest fallback runs last').to.equal(state.fallback.id);
  // Over HTTP the same request is a guest: refused where a permission is needed.
  const res = await t.request('/api/dashboard/widgets');
  expect(res.status).to.equal(401);
  expect((await res.json()).error).to.equal('AUTHENTICATION_REQUIRED');
}

async function recognisesSamples(t: Pick<ContractKernel, 'kernel'>, state: ResolverState, samples: CredentialSample[]): Promise<void> {
  const others = state.resolvers.filter((x) => x !== state.fallback);
  const recognised = new Set<string>();
  for (const sample of samples) {
    const owners: string[] = [];
    for (const r of others) {
      const outcome = await run(t, r, sample.headers);
      if ('error' in outcome) expect.fail(`${r.id} threw on a valid ${sample.kind}: ${outcome.error.stack}`);
      if (outcome.identity) {
        owners.push(r.id);
        expect(malformed(outcome.identity), `${r.id} on a ${sample.kind}`).to.deep.equal([]);
        expect(outcome.identity.kind, `${r.id} on a ${sample.kind}`).to.not.equal('guest');
      }
    }
    expect(owners, `resolvers recognising a ${sample.kind}`).to.have.lengthOf(1);
    recognised.add(owners[0]!);
  }
  for (const r of others) {
    expect(
      recognised.has(r.id),
      `resolver '${r.id}' recognised none of the sample credentials: add a sample of its kind to this suite`,
    ).to.equal(true);
  }
}

async function refusesGarbage(t: Pick<ContractKernel, 'kernel'>, state: ResolverState): Promise<void> {
  const problems: string[] = [];
  for (const headers of GARBAGE) {
    for (const r of state.resolvers) {
      const outcome = await run(t, r, headers);
      if ('error' in outcome) {
        const e = outcome.error;
        if (r === state.fallback || e.status !== 401 || e.code !== 'AUTHENTICATION_REQUIRED')
          problems.push(`${r.id} threw on ${show(headers)}: ${e.stack}`);
        else if (/\n\s+at |sck_|session=/.test(e.message)) problems.push(`${r.id}'s refusal of ${show(headers)} leaks: ${e.message}`);
      } else if (r === state.fallback) {
        if (!outcome.identity || outcome.identity.kind !== 'guest')
          problems.push(`the fallback ${r.id} answered ${JSON.stringify(outcome.identity)} to ${show(headers)}`);
      } else if (outcome.identity) {
        const bad = malformed(outcome.identity);
        problems.push(`${r.id} answered an identity to garbage ${show(headers)}${bad.length ? ` (malformed: ${bad.join('; ')})` : ''}`);
      }
    }
  }
  expect(problems, problems.join('\n')).to.deep.equal([]);
}

async function garbageOverHttp(t: ContractKernel): Promise<void> {
  const problems: string[] = [];
  for (const headers of GARBAGE) {
    for (const path of ['/api/system/health', '/api/dashboard/widgets']) {
      let res: Response;
      try {
        res = await fetch(`${t.url}${path}`, { headers });
      } catch (err) {
        if (headers.host) continue; // fetch refuses some Host values itself: nothing reached the server
        throw err;
      }
      const text = await res.text();
      const what = `GET ${path} with ${show(headers)}: ${res.status}`;
      if (res.status >= 500) problems.push(`${what} ${text.slice(0, 200)}`);
      if (path === '/api/dashboard/widgets' && res.status === 200) problems.push(`${what}: garbage reached a protected route`);
      if (res.status >= 400) {
        const body = (() => {
          try {
            return JSON.parse(text);
          } catch {
            return null;
          }
        })();
        if (body?.success !== false || typeof body.error !== 'string')
          problems.push(`${what}: not the error envelope: ${text.slice(0, 200)}`);
      }
      if (/\n\s+at .+:\d+:\d+/.test(text)) problems.push(`${what}: stack trace in the body`);
    }
  }
  expect(problems, problems.join('\n')).to.deep.equal([]);
}
