/**
 * The credentials each real gateway kind needs, how each field is checked, and what of it may be
 * shown afterwards. Credentials are write-only: once saved, an answer or a page shows only the
 * hint (the last characters of identifiers and API keys, "set" for passwords and keys).
 */
import type { GatewayKind } from "@svc/protocol";
import type { FieldErrors } from "../http/problem.js";
import type { Keyring } from "../secrets/keyring.js";
import { credentialsContext } from "./connection.js";
import { plainValueProblem } from "./knet/fields.js";

interface CredentialField {
  /** Checks the value; returns what is wrong with it, or undefined. */
  problem(value: string): string | undefined;
  /**
   * `last4`: the last 4 characters may be shown; `mode`: those and the key's first 8, which say
   * whether it is a live or a test key (`sk_live_…a1b2`, as Stripe's Dashboard shows it); `set`:
   * only that it is set.
   */
  hint: "last4" | "mode" | "set";
}

/**
 * A KNET credential that travels in KNET's plain payment request (tranportal id and password):
 * its length, then what that request cannot carry (fields.ts's rule, the one svc sends by).
 */
const knetText =
  (max: number, what: string): CredentialField["problem"] =>
  (value) => {
    if (value.length === 0 || value.length > max)
      return `must be the ${what} KNET gave you (1–${max} characters)`;
    const problem = plainValueProblem(value);
    return problem
      ? `${problem}. Copy the ${what} exactly as KNET gave it; if it really holds such a character, ask KNET (through your bank) for another`
      : undefined;
  };

/** Per kind: its credential fields. Sandbox kinds have none. */
export const CREDENTIAL_FIELDS: Partial<Record<GatewayKind, Record<string, CredentialField>>> = {
  knet: {
    // KNET's manual (K-064 3.5.4): tranportal id ≤ 255, password ≤ 15, resource key exactly 16.
    tranportal_id: { problem: knetText(255, "tranportal id"), hint: "last4" },
    tranportal_password: { problem: knetText(15, "tranportal password"), hint: "set" },
    resource_key: {
      problem: (value) =>
        Buffer.byteLength(value, "utf8") === 16
          ? undefined
          : "must be the terminal resource key KNET gave you: exactly 16 characters",
      hint: "set",
    },
  },
  stripe: {
    secret_key: {
      problem: (value) =>
        /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/.test(value)
          ? undefined
          : "must be a Stripe secret key (sk_test_… or sk_live_…) or restricted key (rk_…) from the Dashboard's API keys page",
      hint: "mode",
    },
    webhook_secret: {
      problem: (value) =>
        /^whsec_[A-Za-z0-9+/=]{16,200}$/.test(value)
          ? undefined
          : "must be the signing secret (whsec_…) of the webhook endpoint you created on Stripe for svc (or the one `stripe listen` prints)",
      hint: "set",
    },
  },
};

/** Whether settings of `kind` carry credentials. */
export function needsCredentials(kind: GatewayKind): boolean {
  return CREDENTIAL_FIELDS[kind] !== undefined;
}

/**
 * Checks `credentials` for `kind`, adding each problem to `errors` as `credentials.<field>`.
 * With `partial`, absent fields are allowed (an update that changes only some).
 */
export function checkCredentials(
  kind: GatewayKind,
  credentials: Record<string, unknown>,
  errors: FieldErrors,
  partial = false,
): void {
  const fields = CREDENTIAL_FIELDS[kind];
  if (!fields) {
    if (Object.keys(credentials).length > 0)
      errors.add("credentials", `a ${kind} gateway takes no credentials; leave the field out`);
    return;
  }
  for (const [name, field] of Object.entries(fields)) {
    const value = credentials[name];
    if (value === undefined) {
      if (!partial) errors.add(`credentials.${name}`, "is required");
    } else if (typeof value !== "string") errors.add(`credentials.${name}`, "must be a string");
    else {
      const problem = field.problem(value);
      if (problem) errors.add(`credentials.${name}`, problem);
    }
  }
  for (const name of Object.keys(credentials))
    if (!(name in fields))
      errors.add(`credentials.${name}`, `is not a ${kind} credential; use ${Object.keys(fields).join(", ")}`);
}

/** What may be shown of `credentials`. */
export function credentialsHint(
  kind: GatewayKind,
  credentials: Record<string, string>,
): Record<string, string> {
  const fields = CREDENTIAL_FIELDS[kind] ?? {};
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => {
      const value = credentials[name] ?? "";
      if (field.hint === "set" || value.length < 8) return [name, "set"];
      return [name, `${field.hint === "mode" ? value.slice(0, 8) : ""}…${value.slice(-4)}`];
    }),
  );
}

/** Seals `credentials` for the setting `settingId` (the ciphertext opens only in that row). */
export function sealCredentials(
  keyring: Keyring,
  settingId: string,
  credentials: Record<string, string>,
): string {
  return keyring.seal(JSON.stringify(credentials), credentialsContext(settingId));
}
