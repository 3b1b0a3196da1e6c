import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNginx, NGINX_TEMPLATE, renderCmsConf } from '../../cluster/nginx-proxy.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

const GUIDE = join(PROJECT_ROOT, 'docs', 'guides', 'deploying-several-instances.md');
const MARKER = '<!-- cluster/nginx/cms.conf.template, verbatim: test/unit/nginx-config-docs.test.ts checks it -->';

describe('the nginx configuration of the deployment guide is the one the cluster tests run', function () {
  it('the guide shows cluster/nginx/cms.conf.template verbatim', function () {
    const guide = readFileSync(GUIDE, 'utf8');
    const at = guide.indexOf(MARKER);
    expect(at, `the guide has the marker ${MARKER}`).to.be.greaterThan(-1);
    const block = /```nginx\n([\s\S]*?)```/.exec(guide.slice(at + MARKER.length));
    expect(block, 'an nginx block after the marker').to.not.equal(null);
    expect(block![1]).to.equal(readFileSync(NGINX_TEMPLATE, 'utf8'));
  });

  it('filled in as a deployment would, nginx accepts it (nginx -t; skipped without nginx)', function () {
    const nginx = findNginx();
    if (!nginx) {
      console.log('      nginx is not installed (apt-get install nginx): configuration check skipped');
      return this.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'cms-nginx-t-'));
    try {
      const servers = ['10.0.0.11:3000', '10.0.0.12:3000'].map((s) => `server ${s} max_fails=1 fail_timeout=2s;`);
      writeFileSync(join(dir, 'cms.conf'), renderCmsConf(servers, 'listen 127.0.0.1:8080;'));
      const tmp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `${n}_temp_path ${join(dir, n)};`).join(' ');
      writeFileSync(
        join(dir, 'nginx.conf'),
        `error_log ${join(dir, 'error.log')}; pid ${join(dir, 'nginx.pid')}; events {} http { ${tmp} include ${join(dir, 'cms.conf')}; }\n`,
      );
      const r = spawnSync(nginx, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
