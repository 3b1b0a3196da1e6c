import { createHash, createHmac } from 'node:crypto';
import { expect } from 'chai';
import { responseCookie, type TestResponse, useTestKernel } from '../helpers/kernel.js';

const signWith = (secret: string, id: string) =>
  createHmac('sha256', createHash('sha256').update(secret).digest()).update(`rate-limit.${id}`).digest('base64url');

/** The rl_client cookie of a response as [id, signature], or null. */
function clientCookie(res: TestResponse): [string, string] | null {
  const value = responseCookie(res, 'rl_client')?.slice('rl_client='.length);
  if (!value) return null;
  const [id, signature] = value.split('.');
  return [id!, signature!];
}

describe('rate limiter client cookie (RATE_LIMIT_SECRET)', function () {
  this.timeout(60000);
  let ipCount = 0;
  const t = useTestKernel(
    {
      config: { rateLimit: { enabled: true }, plugins: { options: { auth: { bcryptRounds: 4 } } } },
    },
    {
      seed: async () => {
        t.config.secrets.jwtSecretKey = 'the-session-signing-secret';
        t.config.secrets.rateLimitSecret = 'the-rate-limit-secret';
      },
    },
  );

  /** One wrong sign-in from a browser holding `cookie` (none: a new browser). */
  const attempt = (cookie?: string) => {
    ipCount++;
    return t.request('/api/user/login', {
      method: 'POST',
      headers: cookie ? { cookie } : {},
      // A new unknown email each time: the lockout counts unknown emails too, and this is about the rate limiter.
      json: { email: `nobody-${ipCount}@example.com`, password: 'wrong password' },
    });
  };

  it('gives a new browser a cookie signed with RATE_LIMIT_SECRET, not with the session secret', async () => {
    const res = await attempt();
    expect(res.status).to.equal(401);
    const [id, signature] = clientCookie(res)!;
    expect(signature).to.equal(signWith('the-rate-limit-secret', id));
    expect(signature).to.not.equal(signWith('the-session-signing-secret', id));
    expect(res.headers.getSetCookie().find((c) => c.startsWith('rl_client=')))
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Lax/i);
  });

  it('falls back to the JWT key plus a suffix when RATE_LIMIT_SECRET is unset', async () => {
    t.config.secrets.rateLimitSecret = undefined;
    try {
      const [id, signature] = clientCookie(await attempt())!;
      expect(signature).to.equal(signWith('the-session-signing-secret:rate-limit', id));
      expect(signature).to.not.equal(signWith('the-session-signing-secret', id));
    } finally {
      t.config.secrets.rateLimitSecret = 'the-rate-limit-secret';
    }
  });

  it('limits one browser to its own share while another browser behind the same IP still gets through', async () => {
    const first = await attempt();
    const [id, signature] = clientCookie(first)!;
    const browserA = `rl_client=${id}.${signature}`;
    const statuses = [first.status];
    for (let i = 0; i < 10; i++) statuses.push((await attempt(browserA)).status);
    // The login route allows 10 tries per browser (and 30 per IP) a minute.
    expect(statuses).to.deep.equal([...Array(10).fill(401), 429]);
    const limited = await attempt(browserA);
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.equal('60');
    expect(clientCookie(limited), 'a valid cookie is kept').to.equal(null);

    const browserB = await attempt();
    expect(browserB.status).to.equal(401);
    expect(clientCookie(browserB)![0]).to.not.equal(id);
  });

  it('ignores a forged or re-signed cookie: the client is counted as a new browser', async () => {
    const first = await attempt();
    const [id, signature] = clientCookie(first)!;
    // The last character of a 32-byte base64url value carries two padding bits: flipping one of them
    // leaves the decoded bytes alone, and must still be refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const paddingFlip = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1];
    expect(Buffer.from(paddingFlip, 'base64url')).to.deep.equal(Buffer.from(signature, 'base64url'));
    for (const forged of [
      `${id}.${signWith('the-session-signing-secret', id)}`,
      `${id}.${paddingFlip}`,
      `${id}.AAAA`,
      `${id}`,
      'garbage',
    ]) {
      const res = await attempt(`rl_client=${forged}`);
      expect(res.status, forged).to.equal(401);
      const fresh = clientCookie(res);
      expect(fresh, `a new cookie replaces ${forged}`).to.not.equal(null);
      expect(fresh![0]).to.not.equal(id);
    }
  });

  it('still limits by IP a client that drops its cookie every time', async () => {
    const statuses: number[] = [];
    while (ipCount < 30) statuses.push((await attempt()).status);
    expect(statuses.every((s) => s === 401)).to.equal(true);
    const over = await attempt();
    expect(over.status).to.equal(429);
    expect(await over.json()).to.include({ success: false, error: 'RATE_LIMITED' });
  });
});
