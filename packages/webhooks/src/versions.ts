/** This package's version, named in the `unsupported_version` message (a test keeps it current). */
export const LIBRARY_VERSION = "0.1.0";

/**
 * Payload versions. Each endpoint is pinned to the version it was created with, and every request
 * says its version in the `svc-webhook-version` header, so a payload never changes under a
 * receiver. A version is the date its payload shapes were fixed; the newest is last. The seed's
 * destinations (the general operations URL and plugin URLs) stay on the first version for good.
 *
 * @example
 * import { PAYLOAD_VERSIONS } from "@svc/webhooks/sign";
 * PAYLOAD_VERSIONS.includes(endpoint.payload_version); // a version this library knows
 */
export const PAYLOAD_VERSIONS = ["2026-11-24"] as const;
/**
 * A payload version this library knows.
 *
 * @example
 * const version: PayloadVersion = "2026-11-24";
 */
export type PayloadVersion = (typeof PAYLOAD_VERSIONS)[number];
/**
 * The version new endpoints are pinned to.
 *
 * @example
 * await createEndpoint({ url, payload_version: CURRENT_PAYLOAD_VERSION });
 */
export const CURRENT_PAYLOAD_VERSION: PayloadVersion = PAYLOAD_VERSIONS[PAYLOAD_VERSIONS.length - 1]!;
/**
 * The request header that carries the payload's version.
 *
 * @example
 * headers[VERSION_HEADER] = endpoint.payload_version; // "svc-webhook-version: 2026-11-24"
 */
export const VERSION_HEADER = "svc-webhook-version";
