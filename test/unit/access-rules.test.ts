import { expect } from 'chai';
import { hasScopedPermission, ruleLimits, rulesKey, type AccessRule, type Identity } from '../../kernel/sdk.js';

/** The evaluator of roles' rules (kernel/access-rules.ts): which rules decide a pair and how they combine. */
const who = (rules: AccessRule[], extra: Partial<Identity> = {}): Identity => ({
  kind: 'user',
  userId: 'u-1',
  role: 'author',
  permissions: ['content:read'],
  tenantId: 'default',
  rules,
  ...extra,
});

describe('access rules (kernel evaluator)', function () {
  it('a pair without rules has no limits: the permission strings decide', function () {
    expect(ruleLimits(who([]), 'posts', 'read')).to.equal(null);
    expect(ruleLimits(who([{ action: 'update', collection: 'posts' }]), 'posts', 'read')).to.equal(null);
    expect(ruleLimits(who([{ action: 'read', collection: 'pages' }]), 'posts', 'read')).to.equal(null);
  });

  it('a rule for the collection or * decides, with $user replaced by the caller', function () {
    const limits = ruleLimits(
      who([{ action: 'update', collection: 'posts', fields: ['title'], where: { createdBy: '$user' } }]),
      'posts',
      'update',
    );
    expect(limits?.where).to.deep.equal({ createdBy: 'u-1' });
    expect([...limits!.fields!]).to.deep.equal(['title']);
    expect(limits?.locales).to.equal(null);
    const star = ruleLimits(who([{ action: 'read', collection: '*', locales: ['de'] }]), 'anything', 'read');
    expect(star?.locales).to.deep.equal(['de']);
    expect(star?.where).to.equal(null);
  });

  it('several rules allow what any allows; one without a limit lifts it', function () {
    const limits = ruleLimits(
      who([
        { action: 'read', collection: 'posts', fields: ['title'], where: { status: 'published' } },
        { action: 'read', collection: '*', fields: ['body'], where: { createdBy: { in: ['$user'] } } },
      ]),
      'posts',
      'read',
    );
    expect([...limits!.fields!].sort()).to.deep.equal(['body', 'title']);
    expect(limits?.where).to.deep.equal({ $or: [{ status: 'published' }, { createdBy: { in: ['u-1'] } }] });
    const lifted = ruleLimits(
      who([
        { action: 'read', collection: 'posts', fields: ['title'] },
        { action: 'read', collection: 'posts', where: { status: 'published' } },
      ]),
      'posts',
      'read',
    );
    expect(lifted?.fields).to.equal(null);
    expect(lifted?.where).to.equal(null);
  });

  it('a guest meets no $user condition; the admin role has no limits', function () {
    const guest = ruleLimits(
      who([{ action: 'read', collection: 'posts', where: { createdBy: '$user' } }], { userId: null }),
      'posts',
      'read',
    );
    expect(guest?.where).to.not.deep.equal({ createdBy: null });
    expect(ruleLimits(who([{ action: 'read', collection: 'posts', fields: ['x'] }], { role: 'admin' }), 'posts', 'read')).to.equal(null);
  });

  it('a rule grants its pair in the route check (content:read / content:write scoped to the collection)', function () {
    const author = who([{ action: 'update', collection: 'posts' }], { permissions: [] });
    expect(hasScopedPermission(author, 'content:write', 'posts')).to.equal(true);
    expect(hasScopedPermission(author, 'content:write', 'pages')).to.equal(false);
    expect(hasScopedPermission(author, 'content:read', 'posts')).to.equal(false);
    expect(hasScopedPermission(author, 'content:write', undefined)).to.equal(false);
  });

  it('cache keys differ between rules, and per user only for $user rules', function () {
    const a = who([{ action: 'read', collection: 'posts', where: { createdBy: '$user' } }]);
    const b = who([{ action: 'read', collection: 'posts', where: { createdBy: '$user' } }], { userId: 'u-2' });
    const c = who([{ action: 'read', collection: 'posts', where: { status: 'published' } }]);
    const d = who([{ action: 'read', collection: 'posts', where: { status: 'published' } }], { userId: 'u-2' });
    expect(rulesKey(a, 'posts')).to.not.equal(rulesKey(b, 'posts'));
    expect(rulesKey(c, 'posts')).to.equal(rulesKey(d, 'posts'));
    expect(rulesKey(a, 'posts')).to.not.equal(rulesKey(c, 'posts'));
    expect(rulesKey(a, 'pages')).to.equal('');
  });
});
