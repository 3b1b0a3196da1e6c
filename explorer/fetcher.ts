import type { GraphiQL } from 'graphiql';
import type { ComponentProps } from 'react';

type Fetcher = ComponentProps<typeof GraphiQL>['fetcher'];

/**
 * Runs an operation against POST /api/graphql with the session cookie, the way the admin UI calls the
 * API: same origin, a JSON body (the API refuses other body types, so a cross-site form cannot post
 * here) and a SameSite=Lax cookie. Subscriptions are not offered over HTTP (the API refuses them).
 */
export const fetcher: Fetcher = async (params) => {
  const res = await fetch('/api/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/graphql-response+json, application/json', 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return { errors: [{ message: `HTTP ${res.status}: the answer is not JSON` }] };
  }
};
