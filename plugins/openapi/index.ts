import { definePlugin, type KernelState } from '../../kernel/index.js';
import { buildOpenApi } from '../../kernel/http/openapi.js';
import type { NamespaceMap } from '../../kernel/http/namespaces.js';
import type { RouteTable } from '../../kernel/http/route-table.js';

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
        document ??= buildOpenApi((scope.routes as RouteTable).list(), scope.namespaces as NamespaceMap, (scope.kernelState as KernelState).version);
        ctx.body = document;
      },
    });
  },
});
