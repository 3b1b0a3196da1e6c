import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../kernel/sdk.js';
import { detectWxr } from './detect-wxr.js';

export default definePlugin({
  register({ registries }) {
    registries.importFormats.add({
      format: 'xml_blog',
      label: 'WordPress (WXR)',
      description:
        'WordPress eXtended RSS exports (WXR 1.0 to 1.2): posts, pages, attachments (remote URLs recorded), custom post types, categories, tags, custom-taxonomy terms, authors, comments and custom fields.',
      extensions: ['.xml', '.wxr'],
      features: [
        'posts',
        'pages',
        'attachments',
        'categories',
        'tags',
        'terms',
        'authors',
        'comments',
        'custom-fields',
        'custom-post-types',
      ],
      detect: detectWxr,
      parseTask: 'parseWxr',
      taskFile: fileURLToPath(new URL('./parse-task.js', import.meta.url)),
    });
  },
});
