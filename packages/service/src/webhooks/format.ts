/**
 * Formats every webhook payload shares (the seed's): the UTC timestamp and the sandbox flag.
 * No domain here: the operation and payment webhooks build their payloads in their own folders.
 */

/** `YYYY-MM-DD HH:MM:SS` in UTC, the seed's `timestamp_utc` format. */
export function timestampUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** Every gateway kind svc ships today is a sandbox; a real adapter will say false here. */
export function isSandboxGateway(_pgCode: string | null): boolean {
  return true;
}
