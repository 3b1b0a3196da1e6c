import { createHash } from 'node:crypto';

/** Parameters the CDN leaves out of the string to sign. */
const UNSIGNED = new Set(['file', 'api_key', 'resource_type', 'cloud_name', 'signature']);

/**
 * The CDN's documented request signature: every parameter except file, api_key, resource_type and
 * cloud_name (and empty ones), sorted by name, as `name=value` joined with `&`, followed directly by
 * the API secret, hashed with SHA-1, in hex.
 */
export function cdnSignature(params: Record<string, string>, apiSecret: string): string {
  const toSign = Object.keys(params)
    .filter((k) => !UNSIGNED.has(k) && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHash('sha1')
    .update(toSign + apiSecret)
    .digest('hex');
}
