import { expect } from 'chai';
import fc from 'fast-check';
import { match } from 'path-to-regexp';
import { RouteTable, type RegisteredRoute, type HttpMethod } from '../../kernel/http/route-table.js';
import { Router, type MatchOutcome } from '../../kernel/http/router.js';

const PATHS: Array<[HttpMethod, string]> = [
  ['GET', '/'],
  ['GET', '/admin'],
  ['GET', '/admin/*path'],
  ['GET', '/files/*path'],
  ['GET', '/api/health'],
  ['GET', '/api/health/ready'],
  ['GET', '/api/collections'],
  ['POST', '/api/collections'],
  ['GET', '/api/collections/:name'],
  ['PUT', '/api/collections/:name'],
  ['GET', '/api/collections/:name/:id'],
  ['GET', '/api/Openapi.json'],
  ['GET', '/api/:anything/special'],
  ['DELETE', '/:tenant/api/x'],
  ['GET', '/api/token/:tokenValue'],
  ['GET', '/setup'],
  ['GET', '/setup/assets/*path'],
];

/** The router before buckets: every route tested in declaration order. */
function reference(routes: readonly RegisteredRoute[], method: string, path: string): MatchOutcome {
  const m = method === 'HEAD' ? 'GET' : method;
  const allowed = new Set<string>();
  for (const route of routes) {
    let result;
    try {
      result = match<Record<string, string>>(route.path, { decode: decodeURIComponent, sensitive: false, trailing: true })(path);
    } catch {
      continue;
    }
    if (!result) continue;
    if (route.method === m) return { kind: 'found', match: { route, params: { ...result.params } } };
    allowed.add(route.method);
  }
  return allowed.size ? { kind: 'method', allowed: [...allowed].sort() } : { kind: 'none' };
}

const summary = (o: MatchOutcome) =>
  o.kind === 'found' ? { kind: o.kind, route: `${o.match.route.method} ${o.match.route.path}`, params: o.match.params } : o;

describe('router: routes bucketed by their first two segments', () => {
  const table = new RouteTable();
  for (const [method, path] of PATHS) {
    table.add({ method, path, permission: 'public', summary: path, request: {}, handler: () => null }, 'test');
  }
  const router = new Router(table);

  it('finds what testing every route finds: found, 405 with the allowed methods, none', () => {
    const probes = [
      '/',
      '/admin',
      '/admin/',
      '/ADMIN/x/y',
      '/files/a/b.png',
      '/api/health',
      '/api/health/',
      '/API/Health',
      '/api/health/ready',
      '/api/collections',
      '/api/collections/posts',
      '/api/collections/posts/1',
      '/api/openapi.json',
      '/api/OPENAPI.JSON',
      '/api/foo/special',
      '/api/collections/special',
      '/t1/api/x',
      '/api/token/abc',
      '/api/token/%E0%A4%A',
      '/api/unknown',
      '/nothing',
      '/setup',
      '/setup/assets/x.js',
      '/api/coll\u212Aections',
      '/api/health\u0000',
      '/api/collections/%2F',
    ];
    for (const path of probes) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
        expect(summary(router.find(method, path)), `${method} ${path}`).to.deep.equal(summary(reference(table.list(), method, path)));
      }
    }
  });

  it('agrees with the full scan on generated paths', () => {
    const segment = fc.constantFrom(
      'api',
      'API',
      'admin',
      'files',
      'health',
      'ready',
      'collections',
      'posts',
      'special',
      'x',
      'token',
      'openapi.json',
      'setup',
      'assets',
      '',
      '%41',
      'é',
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), (segments, method) => {
        const path = `/${segments.join('/')}`;
        expect(summary(router.find(method, path))).to.deep.equal(summary(reference(table.list(), method, path)));
      }),
      { numRuns: 2000 },
    );
  });
});
