import bcrypt from 'bcryptjs';
import { definePlugin, type WorkerPool } from '../../../kernel/sdk.js';

export default definePlugin({
  register({ routes }) {
    routes.add({
      method: 'POST',
      path: '/api/bench/hash',
      permission: 'public',
      summary: 'Hash a password in the worker pool (bcrypt, 10 rounds)',
      rateLimit: false,
      request: {},
      handler: async ({ scope }) => {
        const result = await (scope.pool as WorkerPool).hashPassword('benchmark password', 10);
        return { ok: result.ok };
      },
    });
    routes.add({
      method: 'POST',
      path: '/api/bench/hash-inline',
      permission: 'public',
      summary: 'Hash a password on the event loop (what the kernel never does)',
      rateLimit: false,
      request: {},
      handler: () => ({ ok: bcrypt.hashSync('benchmark password', 10).length > 0 }),
    });
  },
});
