/**
 * @simplewebauthn/server (about 13 MB resident with its crypto dependencies) is loaded by the first
 * passkey ceremony, not at start: an instance whose users never use passkeys never loads it.
 */
let loaded: Promise<typeof import('@simplewebauthn/server')> | undefined;
export const webauthn = () => (loaded ??= import('@simplewebauthn/server'));
