import { expect } from 'chai';
import WebSocket from 'ws';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';

/** Opens a WebSocket and resolves with its first message, or with the HTTP status that refused it. */
function firstMessage(url: string, headers: Record<string, string> = {}): Promise<{ message?: any; status?: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no answer within 5 s'));
    }, 5000);
    ws.once('message', (data) => {
      clearTimeout(timer);
      ws.close();
      resolve({ message: JSON.parse(String(data)) });
    });
    ws.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      resolve({ status: res.statusCode });
      ws.terminate();
    });
    ws.once('error', () => undefined);
  });
}

describe('kernel: WebSocket endpoints', function () {
  this.timeout(30000);
  const t = useTestKernel({ plugins: [fixturePlugin('test-identity'), fixturePlugin('test-websocket')] });
  const ws = (path: string) => t.url.replace(/^http/, 'ws') + path;

  it('hands an upgrade to the endpoint of its path (normalised), with the identity the HTTP resolvers give', async () => {
    expect((await firstMessage(ws('/api/whoami'), { 'x-test-identity': 'editor' })).message).to.deep.equal({
      kind: 'user',
      role: 'editor',
      tenantId: 'default',
    });
    expect((await firstMessage(ws('/API/v1/whoami/'))).message).to.deep.equal({ kind: 'guest', role: 'guest', tenantId: 'default' });
  });

  it('answers 404 for a path no endpoint serves', async () => {
    expect(await firstMessage(ws('/api/nothing-here'))).to.deep.equal({ status: 404 });
    expect(await firstMessage(ws('/not-api/whoami'))).to.deep.equal({ status: 404 });
  });
});
