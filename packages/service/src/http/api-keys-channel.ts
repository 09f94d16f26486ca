/**
 * NOTIFY channel of revoked keys' hashes: API processes drop them from their key cache
 * (http/auth.ts listens; merchants/ notifies when a key is revoked, in the revoking transaction).
 */
export const API_KEYS_CHANNEL = "svc_api_keys";
