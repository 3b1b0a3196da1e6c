// The server's rule for "a path on this site" (returnTo after signing in), the same file bundled here.
export { isLocalPath, localPathOr } from '../../../kernel/http/local-path';
