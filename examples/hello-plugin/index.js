// A third-party plugin is plain JavaScript: a manifest and an entry module. It needs nothing from the
// kernel's source; the kernel hands it the container, the route table and the registries.
import { asFunction } from 'awilix';

class Greeter {
  constructor({ config }) {
    this.greeting = config.plugins.options.hello?.greeting ?? 'Hello';
  }
  greet(name) {
    return `${this.greeting}, ${name}!`;
  }
}

export default {
  register({ container, routes, registries }) {
    container.register('greeter', asFunction((deps) => new Greeter(deps)).singleton());
    routes.add({
      method: 'GET',
      path: '/api/hello/:name',
      permission: 'public',
      summary: 'Greets by name',
      request: {},
      handler: ({ params, scope }) => ({ message: scope.greeter.greet(params.name) }),
    });
    registries.healthChecks.add({ id: 'hello', check: async () => ({ status: 'ok' }) });
  },
};
