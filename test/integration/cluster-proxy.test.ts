import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../cluster/round-robin-proxy.js';

/** An upstream that answers readiness 200 and echoes `name method body` for everything else. */
async function upstream(name: string): Promise<{ url: string; server: Server; seen: number }> {
  const state = { url: '', server: null as unknown as Server, seen: 0 };
  state.server = createServer((req, res) => {
    if (req.url === '/api/health/ready') return void res.end('{}');
    state.seen++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.end(`${name} ${req.method} ${Buffer.concat(chunks).toString()}`));
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

describe('cluster harness proxy (cluster/round-robin-proxy.ts)', function () {
  let proxy: RoundRobinProxy | undefined;
  const servers: Server[] = [];
  afterEach(async () => {
    await proxy?.close();
    for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  });

  it('spreads requests round robin over ready upstreams, with no stickiness', async function () {
    const a = await upstream('a');
    const b = await upstream('b');
    servers.push(a.server, b.server);
    proxy = await startRoundRobinProxy({ upstreams: [a.url, b.url], checkIntervalMs: 60000 });
    const names: string[] = [];
    for (let i = 0; i < 6; i++) names.push((await (await fetch(`${proxy.url}/x`)).text()).split(' ')[0]!);
    expect(names.filter((n) => n === 'a')).to.have.length(3);
    expect(names.filter((n) => n === 'b')).to.have.length(3);
  });

  it('moves a request (a POST with its body too) to the next upstream when the connection is refused', async function () {
    const a = await upstream('a');
    const b = await upstream('b');
    servers.push(b.server);
    // Readiness was checked while a was up; it goes away before the next check.
    proxy = await startRoundRobinProxy({ upstreams: [a.url, b.url], checkIntervalMs: 60000 });
    await new Promise((resolve) => a.server.close(resolve));
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/api/things`, { method: 'POST', body: `body ${i}` });
      expect(res.status).to.equal(200);
      answers.push(await res.text());
    }
    expect(answers).to.deep.equal(['b POST body 0', 'b POST body 1', 'b POST body 2', 'b POST body 3']);
    expect(proxy.stats.retries).to.be.at.least(1);
    expect(proxy.upstreams.find((u) => u.url === a.url)!.ready, 'a refused connection marks the upstream not ready').to.equal(false);
  });

  it('answers 502 BAD_GATEWAY when no upstream takes the request', async function () {
    const a = await upstream('a');
    proxy = await startRoundRobinProxy({ upstreams: [a.url], checkIntervalMs: 60000 });
    await new Promise((resolve) => a.server.close(resolve));
    const res = await fetch(`${proxy.url}/api/things`);
    expect(res.status).to.equal(502);
    expect(((await res.json()) as { error: string }).error).to.equal('BAD_GATEWAY');
  });
});
