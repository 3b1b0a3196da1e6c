import type { Context } from 'koa';
import { AppError } from '../../kernel/sdk.js';
import type { PasskeyOptions } from './options.js';

export interface RelyingParty {
  name: string;
  /** The RP ID: a domain the passkeys are bound to. */
  id: string;
  /** Origins accepted in clientDataJSON. */
  origins: string[];
  userVerification: PasskeyOptions['userVerification'];
  timeoutMs: number;
}

/** What a ceremony's response must show to verify: the challenge handed out, an accepted origin, the RP ID. */
export function expectedBy(rp: RelyingParty, challenge: string) {
  return {
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: rp.userVerification === 'required',
  };
}

/** Loopback and wildcard listen addresses: browsers reach those as localhost (an IP cannot be an RP ID). */
const LOCAL_HOSTS = new Set(['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost', '']);

/**
 * The relying party of a request, worked out when it is needed: rpId and origin from the options,
 * otherwise from the public address (CMS_PUBLIC_URL, else the option publicUrl, else
 * http://<host>:<port> of this instance, with the port it really listens on when config says 0).
 * Never from the request's Host header, which the client controls.
 */
export function relyingPartyResolver(
  o: PasskeyOptions,
  config: { host: string; port: number; publicUrl?: string },
): (ctx: Context) => RelyingParty {
  return (ctx) => {
    let base: URL;
    const configured = config.publicUrl || o.publicUrl;
    if (configured) {
      try {
        base = new URL(configured);
      } catch {
        throw new AppError('INTERNAL_ERROR', 500, 'CMS_PUBLIC_URL is not a valid URL; passkeys need the public address', { expose: true });
      }
    } else {
      const host = LOCAL_HOSTS.has(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
      base = new URL(`http://${host}:${config.port || ctx.socket.localPort}`);
    }
    const origins =
      o.origin === undefined ? [base.origin] : (Array.isArray(o.origin) ? o.origin : [o.origin]).map((u) => new URL(u).origin);
    return {
      name: o.rpName,
      id: (o.rpId ?? base.hostname.replace(/^\[|\]$/g, '')).toLowerCase(),
      origins,
      userVerification: o.userVerification,
      timeoutMs: o.timeoutMs,
    };
  };
}
