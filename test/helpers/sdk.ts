// The client SDK (packages/sdk) as the tests use it: its built modules, reached through the project's own
// package name (package.json `exports` "./*"), so they run as a site would load them (compiled JavaScript with
// their declarations), not recompiled with the server's settings.
export * from 'cms-kernel/packages/sdk/dist/index.js';
