/**
 * The auth-passkeys plugin's public surface (type-only): declares its container keys, so
 * `scope.passkeys`, `scope.passkeyChallenges` and `scope.passkeyRelyingParty` are typed in route handlers.
 */
import type { Context } from 'koa';
import type { ChallengesService } from './challenges-service.js';
import type { PasskeysService } from './passkeys-service.js';
import type { RelyingParty } from './relying-party.js';

export type { ChallengesService } from './challenges-service.js';
export type { PasskeysService } from './passkeys-service.js';
export type { RelyingParty } from './relying-party.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    passkeys: PasskeysService;
    passkeyChallenges: ChallengesService;
    /** The relying party (id, name, origin) for a request. */
    passkeyRelyingParty: (ctx: Context) => RelyingParty;
  }
}
