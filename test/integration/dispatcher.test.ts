import { expect } from 'chai';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

describe('permission dispatcher', function () {
  const t = useTestKernel({ plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo'), fixturePlugin('test-lifecycle')] });

  it('refuses an unmapped namespace with 403 for everyone but admins (fail closed)', async function () {
    for (const who of [undefined, 'viewer', 'editor', 'nobody']) {
      const res = await t.request('/api/secret/data', { identity: who });
      expect(res.status, String(who)).to.equal(403);
      expect((await res.json()).error).to.equal('FORBIDDEN');
    }
    const admin = await t.request('/api/secret/data', { identity: 'admin' });
    expect(admin.status).to.equal(200);
  });

  it('refuses unknown namespaces with 403 before routing, so they leak nothing', async function () {
    const guest = await t.request('/api/does-not-exist/anything');
    expect(guest.status).to.equal(403);
    const admin = await t.request('/api/does-not-exist/anything', { identity: 'admin' });
    expect(admin.status).to.equal(404);
  });

  it('closes the upper-case and /api/v1 spellings of an unmapped namespace too', async function () {
    for (const path of [
      '/API/secret/data',
      '/api/v1/secret/data',
      '/Api/Secret/data/',
      '/api//secret/data',
      '//api/secret//data',
      '/api/v1//secret/data',
    ]) {
      expect((await t.request(path, { identity: 'viewer' })).status, path).to.equal(403);
      expect((await t.request(path, { identity: 'admin' })).status, path).to.equal(200);
    }
  });

  it('asks a guest to authenticate (401) and a signed-in user without the permission gets 403', async function () {
    expect((await t.request('/api/echo/items/1')).status).to.equal(401);
    expect((await t.request('/api/echo/items/1', { identity: 'nobody' })).status).to.equal(403);
    expect((await t.request('/api/echo/items/1', { identity: 'viewer' })).status).to.equal(200);
  });

  it('applies the namespace permission per method', async function () {
    const viewer = await t.request('/api/echo', { method: 'POST', identity: 'viewer', json: { name: 'a' } });
    expect(viewer.status).to.equal(403);
    expect((await viewer.json()).message).to.include('content:write');
    const editor = await t.request('/api/echo', { method: 'POST', identity: 'editor', json: { name: 'a' } });
    expect(editor.status).to.equal(201);
  });

  it('applies the route permission on top of the namespace permission; admins bypass both', async function () {
    expect((await t.request('/api/echo/special', { identity: 'editor' })).status).to.equal(403);
    expect((await t.request('/api/echo/special', { identity: 'admin' })).status).to.equal(200);
  });

  it('refuses permission checks before validating input (no schema details to strangers)', async function () {
    const res = await t.request('/api/echo', { method: 'POST', identity: 'viewer', json: { wrong: true } });
    expect(res.status).to.equal(403);
  });

  it('every registered route declares a permission and sits in a mapped namespace (or is public by declaration)', async function () {
    const known = (p: string) => p === 'public' || p === 'authenticated' || t.kernel.registries.permissions.has(p);
    const routes = t.kernel.routes.list();
    expect(routes.length).to.be.greaterThan(10);
    for (const route of routes) {
      const where = `${route.method} ${route.path} (${route.owner})`;
      expect(route.permission, where).to.be.a('string');
      expect(known(route.permission), `${where} uses unknown permission ${route.permission}`).to.equal(true);
      expect(route.request, `${where} declares no request schema`).to.be.an('object');
      if (route.namespace === null) continue;
      const mapped = t.kernel.namespaces.permissionFor(route.namespace, route.method);
      const intentionallyUnmapped = route.owner === 'test-echo' && route.namespace === 'secret';
      if (!intentionallyUnmapped) expect(mapped, `${where}: namespace '${route.namespace}' is not mapped`).to.be.a('string');
    }
  });
});
