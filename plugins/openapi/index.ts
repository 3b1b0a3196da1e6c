import { definePlugin } from '../../kernel/sdk.js';
import { buildOpenApi } from '../../kernel/http/openapi.js';

export default definePlugin({
  register({ routes }) {
    let document: Record<string, unknown> | null = null;
    routes.add({
      method: 'GET',
      path: '/api/openapi.json',
      permission: 'public',
      summary: 'This OpenAPI 3.1 document',
      tags: ['system'],
      envelope: false,
      request: {},
      handler({ ctx, scope }) {
        document ??= buildOpenApi(scope.routes.list(), scope.namespaces, scope.kernelState.version);
        ctx.body = document;
      },
    });
  },
});
