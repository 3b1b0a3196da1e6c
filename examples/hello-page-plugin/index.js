// A third-party plugin with an admin page: two routes under its own namespace, and (in plugin.json)
// an `adminPages` entry naming admin/hello-page.js, which the admin UI loads and mounts.
// A factory: each kernel gets its own guest book (no module-level state).
import { z } from 'zod';

export default () => {
  const visitors = [];
  return {
    register({ routes }) {
      routes.add({
        method: 'GET',
        path: '/api/hello-page/greeting',
        permission: 'authenticated',
        summary: 'A greeting and the names signed in the guest book',
        request: {},
        handler: ({ identity }) => ({ message: `Hello from the hello-page plugin (your role: ${identity.role})`, visitors: [...visitors] }),
      });
      routes.add({
        method: 'POST',
        path: '/api/hello-page/greeting',
        permission: 'authenticated',
        summary: 'Signs the guest book with a name',
        request: { body: z.object({ name: z.string().trim().min(1, 'A name is required').max(60) }) },
        handler: ({ body }) => {
          visitors.push(body.name);
          return { message: `Hello, ${body.name}!`, visitors: [...visitors] };
        },
      });
    },
  };
};
