import { expect } from 'chai';
import type { TestKernel, TestResponse } from './kernel.js';

/** Requests as a test identity (x-test-identity), optionally in another tenant. */
export function as(t: TestKernel, identity: string, tenant?: string) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(tenant ? { 'x-test-tenant': tenant } : {}), ...extra });
  return {
    get: (path: string): Promise<TestResponse> => t.request(path, { identity, headers: headers() }),
    post: (path: string, json?: unknown): Promise<TestResponse> => t.request(path, { method: 'POST', identity, headers: headers(), json }),
    patch: (path: string, json: unknown): Promise<TestResponse> => t.request(path, { method: 'PATCH', identity, headers: headers(), json }),
    put: (path: string, json: unknown): Promise<TestResponse> => t.request(path, { method: 'PUT', identity, headers: headers(), json }),
    delete: (path: string): Promise<TestResponse> => t.request(path, { method: 'DELETE', identity, headers: headers() }),
  };
}

/** A POST as `identity`: a FormData body as it is (multipart), any other body as JSON. */
export function postAs(t: TestKernel, identity: string, path: string, body: FormData | unknown): Promise<TestResponse> {
  return body instanceof FormData
    ? t.request(path, { method: 'POST', body, identity })
    : t.request(path, { method: 'POST', json: body, identity });
}

/** The data of a success response, failing the test (with the body) on another status. */
export async function dataOf(res: TestResponse, status = 200): Promise<any> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).to.equal(status);
  return body.data;
}

/** The body of a failure response (`{success: false, error, message, issues?}`), failing the test on another status. */
export async function failureOf(
  res: { status: number; json(): Promise<any> },
  status: number,
): Promise<{ error: string; message: string }> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).to.equal(status);
  return body as { error: string; message: string };
}

/** The error code of a failure response, failing the test (with the body) on another status or a success. */
export async function errorOf(res: Response, status: number): Promise<string> {
  const body = (await res.json()) as { success: boolean; error: string };
  expect(res.status, JSON.stringify(body)).to.equal(status);
  expect(body.success).to.equal(false);
  return body.error;
}

/** A posts collection most content tests use. */
export const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'body', type: 'richtext' },
    { name: 'views', type: 'number', indexed: true, default: 0 },
    { name: 'featured', type: 'boolean' },
    { name: 'publishedOn', type: 'date' },
    { name: 'category', type: 'select', options: ['news', 'guide', 'opinion'], indexed: true },
    { name: 'meta', type: 'json' },
  ],
};

/** Creates the posts collection (POSTS) as the test admin, failing the test unless it answers 201. */
export async function createPosts(t: TestKernel): Promise<void> {
  await dataOf(await as(t, 'admin').post('/api/collections', POSTS), 201);
}

/** A 400 VALIDATION_ERROR's issues (`{path, message}`), failing the test on another answer. */
export async function validationIssues(res: { status: number; json(): Promise<any> }): Promise<Array<{ path: string; message: string }>> {
  const { error, issues } = (await failureOf(res, 400)) as unknown as { error: string; issues: Array<{ path: string; message: string }> };
  expect(error).to.equal('VALIDATION_ERROR');
  return issues;
}

/** The data of a GraphQL operation as `identity`, failing the test on an HTTP error or GraphQL errors. */
export async function graphqlData(t: TestKernel, query: string, identity = 'editor'): Promise<any> {
  const res = await t.request('/api/graphql', { method: 'POST', identity, json: { query } });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  expect(res.status, JSON.stringify(body)).to.equal(200);
  expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
  return body.data;
}

/** The `cta` component (a required label, an optional url) several content-model tests build on. */
export const CTA_COMPONENT = {
  name: 'cta',
  fields: [
    { name: 'label', type: 'text', required: true },
    { name: 'url', type: 'url' },
  ],
};

/** Uploads a content package as `tenant`'s admin, checks it is valid and answers its import plan (and the validate answer). */
export async function planPackageImport(t: TestKernel, bytes: Buffer, tenant: string): Promise<{ plan: any; validated: any }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), 'x.svelty-package');
  const res = await t.request('/api/content-import/validate', {
    method: 'POST',
    body: form,
    identity: 'admin',
    headers: { 'x-test-tenant': tenant },
  });
  const v = await dataOf(res);
  expect(v.valid, JSON.stringify(v.problems)).to.equal(true);
  return { plan: await dataOf(await as(t, 'admin', tenant).post('/api/content-import/plan', { uploadId: v.uploadId })), validated: v };
}

/** Creates collections (POST /api/collections bodies) as the test admin, in order, failing the test unless each answers 201. */
export async function createCollections(t: TestKernel, ...collections: Array<Record<string, unknown>>): Promise<void> {
  for (const c of collections) await dataOf(await as(t, 'admin').post('/api/collections', c), 201);
}

/** A function that creates an entry as `identity` (published unless the body says otherwise) and answers its id. */
export function entryMaker(t: TestKernel, identity = 'editor'): (collection: string, body: Record<string, unknown>) => Promise<string> {
  return async (collection, body) =>
    (await dataOf(await as(t, identity).post(`/api/collections/${collection}`, { status: 'published', ...body }), 201))._id as string;
}
