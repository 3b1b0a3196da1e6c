import { expect } from 'chai';
import { bulkHeapGrowthActive, setBulkHeapGrowth, withBulkHeapGrowth } from '../../kernel/heap-growth.js';
import { newIdsOfPlan } from '../../plugins/content-packages/new-ids.js';

describe('memory during data operations', function () {
  afterEach(() => setBulkHeapGrowth(0));

  it('holds the fixed growth while any bulk run is in progress and gives it back when the last ends, even on failure', async function () {
    setBulkHeapGrowth(20);
    let release!: () => void;
    const long = withBulkHeapGrowth(() => new Promise<string>((resolve) => (release = () => resolve('long'))));
    expect(bulkHeapGrowthActive()).to.equal(1);
    const failing = withBulkHeapGrowth(async () => {
      expect(bulkHeapGrowthActive()).to.equal(2);
      throw new Error('apply failed');
    });
    expect(
      await failing.then(
        () => 'resolved',
        (err: Error) => err.message,
      ),
    ).to.equal('apply failed');
    expect(bulkHeapGrowthActive()).to.equal(1);
    release();
    expect(await long).to.equal('long');
    expect(bulkHeapGrowthActive()).to.equal(0);
  });

  it('changes nothing when set to 0', async function () {
    setBulkHeapGrowth(0);
    expect(await withBulkHeapGrowth(async () => bulkHeapGrowthActive())).to.equal(0);
  });
});

describe('ids of entries an import plan creates', function () {
  it('gives one key the same version-4 UUID within a plan, and unrelated ids in another plan', function () {
    const a = newIdsOfPlan();
    const b = newIdsOfPlan();
    const id = a('posts/3f2b8f1e-1111-4222-8333-444455556666');
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a('posts/3f2b8f1e-1111-4222-8333-444455556666')).to.equal(id);
    expect(b('posts/3f2b8f1e-1111-4222-8333-444455556666')).to.not.equal(id);
    const many = new Set(Array.from({ length: 10_000 }, (_, i) => a(`posts/${i}`)));
    expect(many.size).to.equal(10_000);
  });
});
