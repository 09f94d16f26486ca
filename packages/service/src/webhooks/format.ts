/**
 * Formats every webhook payload shares (the seed's): the UTC timestamp and the sandbox flag.
 * No domain here: the operation and payment webhooks build their payloads in their own folders.
 */

/** `YYYY-MM-DD HH:MM:SS` in UTC, the seed's `timestamp_utc` format. */
export function timestampUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/**
 * `is_sandbox`: false only when the payment went through a gateway setting that moves real money
 * (`live`, from Routing), or, before it went through any, when one it offers does.
 */
export function isSandboxPayment(
  live: readonly string[],
  pgCode: string | null,
  offered: readonly string[] = [],
): boolean {
  return pgCode !== null ? !live.includes(pgCode) : !offered.some((code) => live.includes(code));
}
