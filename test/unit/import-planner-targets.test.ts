import { expect } from 'chai';
import type { ImportParseSummary } from '../../plugins/importers/public.js';
import { buildPlan, defaultTarget } from '../../plugins/importers/planner.js';
import type { CollectionInfo } from '../../plugins/content/public.js';

const collection = (name: string, fields: CollectionInfo['fields'] = [{ name: 'title', type: 'text' }]): CollectionInfo => ({
  name,
  label: name,
  singular: name,
  fields,
  version: 1,
});

describe('importer planner: default targets and planned links', () => {
  it('never picks a collection of yours: the free name, else <name>_<source>, then numbered; an import-made one with this entity is reused', () => {
    expect(defaultTarget('articles', 'strapi', [], undefined, new Set())).to.deep.equal({ name: 'articles' });
    expect(defaultTarget('articles', 'strapi', [collection('articles')], undefined, new Set())).to.deep.equal({ name: 'articles_strapi' });
    const both = [collection('articles'), collection('articles_strapi')];
    expect(defaultTarget('articles', 'strapi', both, undefined, new Set())).to.deep.equal({ name: 'articles_strapi_2' });
    const made = collection('articles_strapi', [
      { name: 'title', type: 'text' },
      { name: '_source_import', type: 'json' },
    ]);
    const reused = defaultTarget('articles', 'strapi', [collection('articles'), made], { articles_strapi: 6 }, new Set());
    expect(reused.name).to.equal('articles_strapi');
    expect(reused.existing).to.equal(made);
    // An import-made collection without this entity's records is not reused.
    expect(defaultTarget('articles', 'strapi', [collection('articles'), made], {}, new Set()).name).to.equal('articles_strapi_2');
    // Names stay within 48 characters.
    const long = 'a'.repeat(48);
    expect(defaultTarget(long, 'wordpress', [collection(long)], undefined, new Set()).name).to.have.length.at.most(48);
  });

  it('WXR links: a scaffolded posts collection gets featuredMedia (media) and comments get parentEntry, the source fields stay', () => {
    const summary: ImportParseSummary = {
      counts: { posts: 2, attachments: 1, comments: 3 },
      fields: {
        posts: { title: 'text', featuredImage: 'relation' },
        attachments: { title: 'text', url: 'text' },
        comments: { content: 'richtext', parent: 'relation' },
      },
      warnings: [],
      blockedReasons: [],
      links: [
        { entity: 'posts', field: 'featuredImage', to: 'attachments', as: 'media', into: 'featuredMedia' },
        { entity: 'comments', field: 'parent', to: 'comments', as: 'entry', into: 'parentEntry' },
      ],
    };
    const plan = buildPlan({
      planId: 'p',
      uploadId: 'u',
      format: 'xml_blog',
      filename: 'export.xml',
      summary,
      collections: [],
      scaffold: true,
      mode: 'add',
      linked: {},
      sourceTag: 'wordpress',
    });
    expect(plan.links).to.deep.equal([
      {
        entity: 'posts',
        collection: 'posts',
        field: 'featuredImage',
        to: 'attachments',
        toCollection: 'attachments',
        as: 'media',
        into: 'featuredMedia',
        toMediaField: 'media',
      },
      {
        entity: 'comments',
        collection: 'comments',
        field: 'parent',
        to: 'comments',
        toCollection: 'comments',
        as: 'entry',
        into: 'parentEntry',
      },
    ]);
    const posts = plan.scaffoldCollections.find((c) => c.name === 'posts')!;
    expect(posts.fields.find((f) => f.name === 'featuredMedia')).to.include({ type: 'media' });
    expect(posts.fields.find((f) => f.name === 'featuredImage')).to.include({ type: 'text' });
    const comments = plan.scaffoldCollections.find((c) => c.name === 'comments')!;
    expect(comments.fields.find((f) => f.name === 'parentEntry')).to.include({ type: 'text' });
  });
});
