import { expect } from 'chai';
import { rmSync } from 'node:fs';
import type { Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { createUpdateServer } from '../../plugins/update-server/launch.js';
import type { UpdateCheckService } from '../../plugins/update-check/service.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';

/**
 * The instance against the real update server of this repository (plugins/update-server, started as
 * `npm run update-server` builds it) on loopback: registration, a signed check, the latest version
 * shown to admins, a rotated secret recovered by registering again, and diagnose.
 */
describe('update check against the real update server (plugins/update-server)', function () {
  this.timeout(60000);
  let server: Kernel;
  let serverData: string;
  let t: TestKernel;
  const service = () => t.kernel.container.resolve<UpdateCheckService>('updateCheck');

  before(async function () {
    serverData = tempDir('cms-update-server-');
    server = createUpdateServer(
      {
        UPDATE_SERVER_PORT: '0',
        UPDATE_SERVER_DATA_DIR: serverData,
        UPDATE_SERVER_LATEST_VERSION: '42.1.0',
        // Every check of this test comes from 127.0.0.1: no per-IP window.
        UPDATE_SERVER_CHECK_INTERVAL_SECONDS: '0',
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
      },
      createLogger('silent'),
    );
    await server.start();
    t = await startTestKernel({
      plugins: [fixturePlugin('test-identity')],
      config: {
        plugins: {
          options: {
            'update-check': { allowInTests: true, ci: false, url: server.url, geolocationUrl: 'off', initialDelayMs: 60000, jitterMs: 0 },
          },
        },
      },
    });
  });
  after(async () => {
    await t?.close();
    await server?.close();
    rmSync(serverData, { recursive: true, force: true });
  });

  it('registers, sends a signed check the server accepts, and shows its latest version to admins', async function () {
    expect(await service().tick()).to.equal('checked');
    const data = (await (await t.request('/api/telemetry/status', { identity: 'admin' })).json()).data;
    expect(data).to.include({ latestVersion: '42.1.0', updateAvailable: true, registered: true, lastError: null });
  });

  it('recovers from a rotated secret (403 INVALID_SIGNATURE) by registering again and retrying once', async function () {
    const installationId = (await service().store.state()).installationId!;
    // Someone registers the same installation again: the server rotates its secret.
    const rotated = await fetch(`${server.url}/api/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ installation_id: installationId }),
    });
    expect(rotated.status).to.equal(200);
    await service().store.reset();
    expect(await service().tick()).to.equal('checked');
    const data = (await (await t.request('/api/telemetry/status', { identity: 'admin' })).json()).data;
    expect(data).to.include({ latestVersion: '42.1.0', lastError: null });
  });

  it('diagnose reports a working registration and signed ping (the geolocation lookup switched off)', async function () {
    const data = (await (await t.request('/api/telemetry/diagnose', { identity: 'admin' })).json()).data;
    expect(data.enabled).to.equal(true);
    const byStep = Object.fromEntries(data.steps.map((s: { step: string }) => [s.step, s]));
    expect(byStep.registration.ok).to.equal(true);
    expect(byStep['signed-ping'].ok, byStep['signed-ping'].error).to.equal(true);
    expect(byStep.geolocation.ok).to.equal(true);
    expect(byStep.geolocation.detail).to.match(/switched off/);
  });
});
