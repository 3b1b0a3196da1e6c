import { definePlugin } from '../../kernel/index.js';
import { systemRoutes } from './routes.js';

export default definePlugin({
  register({ routes }) {
    for (const route of systemRoutes) routes.add(route);
  },
});
