import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateServerClient, UpdateServerError } from '../../plugins/update-check/client.js';
import { GEOLOCATION_TIMEOUT_MS, HEARTBEAT_TIMEOUT_MS } from '../../plugins/update-check/options.js';
import { lookupLocation } from '../../plugins/update-check/payload.js';

/**
 * The spec's update-check timeouts (geolocation 5 s, heartbeat 10 s) against a real loopback server
 * that accepts the connection and never answers. The tests pass a short timeout (the constants are the
 * defaults, checked below) so the suite does not wait 5 or 10 s.
 */
describe('update check: a server that never answers (timeouts)', function () {
  let server: Server;
  let base: string;
  const hanging: ServerResponse[] = [];
  let requests = 0;

  before(async () => {
    server = createServer((req, res) => {
      requests += 1;
      req.resume();
      hanging.push(res); // never answered
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('uses the spec values by default: 5 s for the geolocation lookup, 10 s for register and check-update', function () {
    expect(GEOLOCATION_TIMEOUT_MS).to.equal(5_000);
    expect(HEARTBEAT_TIMEOUT_MS).to.equal(10_000);
  });

  it('a geolocation lookup that gets no answer leaves every location field null and says why', async function () {
    const before = requests;
    const { location, error } = await lookupLocation(`${base}/json/`, undefined, 200);
    expect(requests - before, 'the lookup reached the server').to.equal(1);
    expect(Object.values(location).every((v) => v === null)).to.equal(true);
    expect(error).to.equal('geolocation lookup failed: no answer within 0.2 s');
  });

  it('register and check-update that get no answer fail with a clear reason instead of hanging', async function () {
    const client = new UpdateServerClient(base, 200);
    const err = await client.register('a'.repeat(64)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(UpdateServerError);
    expect((err as Error).message).to.equal('update server not reachable: no answer within 0.2 s');
  });
});
