/** The collection models seeding creates when the content plugin is enabled (what a fresh site starts with). */
export const DEFAULT_COLLECTIONS = [
  {
    name: 'posts',
    label: 'Posts',
    singular: 'post',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'excerpt', type: 'text' },
      { name: 'body', type: 'richtext' },
      { name: 'cover', type: 'media' },
      { name: 'tags', type: 'json' },
      { name: 'publishedAt', type: 'date', indexed: true },
    ],
  },
  {
    name: 'pages',
    label: 'Pages',
    singular: 'page',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'body', type: 'richtext' },
      { name: 'menuOrder', type: 'number', indexed: true },
    ],
  },
];

/** What setup needs of the content plugin's SDK (the container key `contentClient`, optional). */
export interface ContentSeeder {
  collections: { list(): Promise<Array<{ name: string }>>; create(definition: unknown): Promise<unknown> };
}

/** Creates the default collections that do not exist yet; nothing when the content plugin is off. */
export async function seedDefaultCollections(client: ContentSeeder | null): Promise<string[]> {
  if (!client) return [];
  const existing = new Set((await client.collections.list()).map((c) => c.name));
  const created: string[] = [];
  for (const definition of DEFAULT_COLLECTIONS) {
    if (existing.has(definition.name)) continue;
    await client.collections.create(definition);
    created.push(definition.name);
  }
  return created;
}
