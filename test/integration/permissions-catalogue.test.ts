import { expect } from 'chai';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

interface PermissionInfo {
  name: string;
  description: string;
  group: string;
  held: boolean;
}

// GET /api/permissions: the catalogue the API key and website token forms offer (issue 33, item 3: the
// form offered 13 hand-written permissions and not content:sync).
describe('GET /api/permissions: every permission the instance knows, grouped and described', function () {
  this.timeout(60000);
  const t = useTestKernel({ plugins: [fixturePlugin('test-identity')] });

  const list = async (identity: string): Promise<PermissionInfo[]> => {
    const res = await t.request('/api/permissions', { identity });
    expect(res.status, await res.clone().text()).to.equal(200);
    return (await res.json()).data.permissions;
  };

  it("lists the registry's permissions (kernel and plugins), each with a group and a description; an admin holds them all", async () => {
    const registered = t.kernel.container
      .resolve<any>('registries')
      .permissions.list()
      .map((p: { name: string }) => p.name)
      .sort();
    const perms = await list('admin');
    expect(perms.map((p) => p.name).sort()).to.deep.equal(registered);
    for (const name of ['content:sync', 'content:read', 'backup:create', 'config:write', 'manage:system', 'user:manage', 'migration:apply'])
      expect(perms.map((p) => p.name)).to.include(name);
    const byName = new Map(perms.map((p) => [p.name, p]));
    expect(byName.get('content:sync')).to.include({ group: 'content', held: true });
    expect(byName.get('content:sync')!.description).to.match(/\w+ \w+/);
    expect(byName.get('media:write')!.group).to.equal('media');
    expect(byName.get('user:manage')!.group).to.equal('users');
    expect(byName.get('backup:read')!.group).to.equal('data');
    expect(byName.get('system:settings')!.group).to.equal('system');
    expect(perms.every((p) => p.held && p.description.length > 0)).to.equal(true);
    // Sorted by group (content first), so the form shows them in that order.
    expect(perms[0]!.group).to.equal('content');
  });

  it('says which ones a non-admin holds (only those can be given to a key): an editor holds content:sync, not user:manage', async () => {
    const perms = await list('editor');
    const held = perms.filter((p) => p.held).map((p) => p.name);
    expect(held).to.include('content:sync').and.include('content:read');
    expect(held).to.not.include('user:manage');
    expect(perms.find((p) => p.name === 'user:manage')).to.include({ held: false });
  });

  it('anonymous callers get 401', async () => {
    const res = await t.request('/api/permissions');
    expect(res.status).to.equal(401);
    expect((await res.json()).error).to.equal('AUTHENTICATION_REQUIRED');
  });
});

describe("GET /api/permissions as another tenant's admin", function () {
  this.timeout(60000);
  let t: TestKernel;
  let t2Cookie: string;
  before(async () => {
    ({ t, t2Cookie } = await startTwoTenantKernel('sqlite'));
  });
  after(async () => t?.close());

  it("answers the same installation-wide catalogue (no tenant's data), held as that tenant's admin", async () => {
    const own = await t.request('/api/permissions', { identity: 'admin' });
    const other = await t.request('/api/permissions', { headers: { ...T2_HOST, cookie: t2Cookie } });
    expect(other.status).to.equal(200);
    const names = (r: any) => r.data.permissions.map((p: PermissionInfo) => p.name);
    const otherBody = await other.json();
    expect(names(otherBody)).to.deep.equal(names(await own.json()));
    expect(otherBody.data.permissions.every((p: PermissionInfo) => p.held)).to.equal(true);
  });
});
