/**
 * API key authentication (docs.stripe.com/api/authentication): `Authorization: Bearer sk_…`, or
 * Basic auth with the key as the user name and no password, as Stripe accepts both.
 */
import type { IncomingMessage } from "node:http";
import { invalidRequest } from "./errors.js";
import type { AccountState } from "./store.js";

/** The secret key a request carries, or undefined. */
export function keyOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic)
    return (
      Buffer.from(basic[1] ?? "", "base64")
        .toString("utf8")
        .split(":")[0] || undefined
    );
  return undefined;
}

/** Stripe's way of naming a wrong key: all but its prefix and last four characters starred. */
function masked(key: string): string {
  const prefix = /^[a-z]{2}_(test|live)_/.exec(key)?.[0] ?? "";
  return `${prefix}${"*".repeat(Math.max(0, key.length - prefix.length - 4))}${key.slice(-4)}`;
}

/** The account whose key the request carries; Stripe's 401 otherwise. */
export function authenticate(accounts: readonly AccountState[], key: string | undefined): AccountState {
  if (!key)
    throw invalidRequest(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
      { status: 401, phase: "validation" },
    );
  const account = accounts.find((a) => a.config.secretKey === key);
  if (!account)
    throw invalidRequest(`Invalid API Key provided: ${masked(key)}`, { status: 401, phase: "validation" });
  return account;
}
