import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { join } from 'node:path';
import { ERROR_CATALOGUE } from '../../kernel/errors.js';
import { PROJECT_ROOT } from '../../kernel/version.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

describe('OpenAPI document', function () {
  let doc: any;
  const t = useTestKernel(
    {
      plugins: [fixturePlugin('test-identity'), fixturePlugin('test-echo'), join(PROJECT_ROOT, 'examples', 'hello-plugin')],
    },
    {
      seed: async () => {
        const res = await t.request('/api/openapi.json');
        expect(res.status).to.equal(200);
        doc = await res.json();
      },
    },
  );

  it('is a valid OpenAPI 3.1 document, public and not enveloped', async function () {
    expect(doc.openapi).to.equal('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('has an operation for every registered route, with its permission', function () {
    for (const route of t.kernel.routes.list()) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).to.be.an('object');
      expect(op['x-permission']).to.equal(route.permission);
      expect(op.summary).to.equal(route.summary);
    }
    const count = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
    expect(count).to.equal(t.kernel.routes.list().length);
  });

  it('documents request schemas from the same declarations the router validates with', function () {
    const post = doc.paths['/api/echo'].post;
    const schema = post.requestBody.content['application/json'].schema;
    expect(schema.required).to.deep.equal(['name']);
    expect(schema.properties.name).to.include({ type: 'string', minLength: 1 });
    const item = doc.paths['/api/echo/items/{id}'].get;
    expect(item.parameters.map((p: any) => `${p.in}:${p.name}`)).to.include.members(['path:id', 'query:q']);
    expect(Object.keys(post.responses)).to.include('201');
    expect(doc.paths['/api/health'].get.security).to.deep.equal([]);
  });

  it('documents the multipart uploads (media, importers) with their file field as binary', function () {
    for (const path of ['/api/media/upload', '/api/importers/validate', '/api/migration/import']) {
      const schema = doc.paths[path].post.requestBody?.content?.['multipart/form-data']?.schema;
      expect(schema, path).to.be.an('object');
      expect(schema.properties.file, path).to.include({ type: 'string', format: 'binary' });
      expect(schema.required, path).to.include('file');
    }
  });

  it('carries the error catalogue and the namespace map', function () {
    expect(doc['x-error-catalogue']).to.deep.equal(ERROR_CATALOGUE);
    expect(doc['x-namespaces'].echo).to.deep.equal({ GET: 'content:read', POST: 'content:write' });
    expect(doc['x-namespaces'].system).to.deep.equal({ GET: 'system:read', POST: 'manage:system' });
  });
});
