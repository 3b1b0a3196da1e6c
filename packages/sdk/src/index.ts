// @cms-kernel/sdk: a typed client of a CMS kernel instance (README.md). Every module is free of side effects
// ("sideEffects": false): a bundler keeps only what a site imports.
export * from './content-entry.js';
export {
  subscriptions,
  PROTOCOL as SUBSCRIPTIONS_PROTOCOL,
  type Subscription,
  type Subscriptions,
  type SubscriptionsOptions,
  type SubscriptionTarget,
  type WebSocketConstructor,
} from './subscriptions.js';
