/**
 * Payload versions. Each endpoint is pinned to the version it was created with, and every request
 * says its version in the `svc-webhook-version` header, so a payload never changes under a
 * receiver. A version is the date its payload shapes were fixed; the newest is last. The seed's
 * destinations (the general operations URL and plugin URLs) stay on the first version for good.
 */
export const PAYLOAD_VERSIONS = ["2026-11-24"] as const;
export type PayloadVersion = (typeof PAYLOAD_VERSIONS)[number];
/** The version new endpoints are pinned to. */
export const CURRENT_PAYLOAD_VERSION: PayloadVersion = PAYLOAD_VERSIONS[PAYLOAD_VERSIONS.length - 1]!;
/** The request header that carries the payload's version. */
export const VERSION_HEADER = "svc-webhook-version";
