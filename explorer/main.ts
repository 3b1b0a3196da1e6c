// The GraphQL explorer served at GET /api/graphql to signed-in browsers: GraphiQL (React), built by
// explorer/vite.config.js into dist/graphql-explorer, separate from the admin UI's bundle.
import { setNonce } from 'get-nonce';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import './explorer.css';
import { fetcher } from './fetcher';

const DEFAULT_QUERY = `# Runs against POST /api/graphql as you (the session cookie): what you may read, you see.
# Ctrl-Space completes, Ctrl-Enter runs; the docs are in the book icon on the left.
{
  collections {
    name
  }
}
`;

// GraphiQL's dialogs lock scrolling with a <style> element (react-remove-scroll): it carries the CSP nonce of this response.
const nonce = document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content');
if (nonce) setNonce(nonce);

// GET /api/graphql?query=... in a browser opens the explorer with that query.
const linked = new URLSearchParams(location.search);

createRoot(document.getElementById('explorer')!).render(
  createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    query: linked.get('query') ?? undefined,
    variables: linked.get('variables') ?? undefined,
    shouldPersistHeaders: false,
    isHeadersEditorEnabled: false,
  }),
);
