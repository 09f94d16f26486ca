/**
 * A merchant's gateway settings (pg_codes): which gateway kind each points at, in which
 * currencies, and — for real gateways — the merchant's credentials there, sealed at rest under
 * SVC_SECRETS_KEY and never shown again (only their hint). Used by the operator API and the
 * dashboard's Gateways page.
 */
import { GATEWAY_KINDS, type GatewayKind, isCurrency, newId } from "@svc/protocol";
import type { Db } from "../db/client.js";
import { AppError, FieldErrors } from "../http/problem.js";
import { type GatewaySettingRow, merchantsRepo } from "../merchants/merchants.repo.js";
import type { Keyring } from "../secrets/keyring.js";
import { openCredentials } from "./connection.js";
import { KNET_PRODUCTION_HOST, KNET_TEST_HOST } from "./knet/fields.js";
import { STRIPE_API_HOST } from "./stripe/client.js";
import {
  CREDENTIAL_FIELDS,
  checkCredentials,
  credentialsHint,
  needsCredentials,
  sealCredentials,
} from "./credentials.js";
import { type GatewaySettingPatch, gatewaySettingsRepo } from "./settings.repo.js";
import { noMerchant } from "../http/not-found.js";

const PG_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Where each real gateway is by default, and KNET's test host (`environment: "test"`). */
export const GATEWAY_HOSTS = {
  knet: { production: KNET_PRODUCTION_HOST, test: KNET_TEST_HOST },
  stripe: { production: STRIPE_API_HOST, test: STRIPE_API_HOST },
} as const;

export interface GatewaySettingInput {
  pg_code: string;
  kind: string;
  operation?: "purchase" | "authorize";
  currencies: string[];
  name?: string;
  notification_secret?: string;
  wallet_a_merchant_identifier?: string;
  credentials?: Record<string, unknown>;
  api_base_url?: string;
  environment?: "production" | "test";
}

export type GatewaySettingUpdate = Partial<
  Pick<GatewaySettingInput, "operation" | "currencies" | "name" | "credentials" | "environment">
> & { api_base_url?: string | null };

/** A setting as answers and pages show it: credentials as their hint only. */
export function gatewaySettingView(row: GatewaySettingRow) {
  return {
    id: row.id,
    pg_code: row.pg_code,
    name: row.name,
    kind: row.kind,
    operation: row.operation,
    currencies: row.currencies,
    wallet_a_merchant_identifier: row.wallet_a_merchant_identifier,
    api_base_url: row.api_base_url,
    credentials: row.credentials_hint,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
export type GatewaySettingView = ReturnType<typeof gatewaySettingView>;

/** https always; plain http only to this machine (a stand-in on loopback). */
function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL such as https://kpaytest.com.kw";
  }
  if (parsed.search || parsed.hash || parsed.username) return "must have no query, fragment or user";
  if (parsed.protocol === "https:") return undefined;
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(parsed.hostname);
  return parsed.protocol === "http:" && loopback
    ? undefined
    : "must use https:// (plain http:// only for a stand-in on this machine's loopback)";
}

/** The kind's own rules on currencies and the payment operation. */
function checkKindRules(kind: GatewayKind, currencies: string[], operation: string, errors: FieldErrors) {
  if (kind === "knet") {
    if (currencies.length !== 1 || currencies[0] !== "KWD")
      errors.add("currencies", 'must be ["KWD"]: KNET takes Kuwaiti dinars only');
    if (operation !== "purchase")
      errors.add("operation", "must be purchase: KNET's authorisation (action 4) is not generally enabled");
  }
}

/** Whether `url` is one of the gateway's own hosts (its production host or KNET's test host). */
function officialHost(kind: GatewayKind, url: string): boolean {
  const hosts = (GATEWAY_HOSTS as Partial<Record<GatewayKind, Record<string, string>>>)[kind];
  return hosts !== undefined && Object.values(hosts).includes(url);
}

function resolveBaseUrl(
  kind: GatewayKind,
  input: { api_base_url?: string | null; environment?: "production" | "test" },
  errors: FieldErrors,
): string | null | undefined {
  if (input.environment !== undefined && kind !== "knet")
    errors.add("environment", "applies to KNET only (a Stripe key says itself whether it is test or live)");
  if (input.api_base_url !== undefined && input.api_base_url !== null) {
    if (!needsCredentials(kind)) errors.add("api_base_url", `a ${kind} gateway takes no api_base_url`);
    const problem = baseUrlProblem(input.api_base_url);
    if (problem) errors.add("api_base_url", problem);
    return input.api_base_url.replace(/\/+$/, "");
  }
  if (input.environment === "test" && kind === "knet") return KNET_TEST_HOST;
  if (input.environment === "production" || input.api_base_url === null) return null;
  return undefined;
}

export function createGatewaySettingsService(
  db: Db,
  options: {
    keyring: Keyring | undefined;
    /** The sandbox's per-setting notification secret (wired in app.ts); undefined: it must be given. */
    defaultNotificationSecret?: (pgCode: string) => string | undefined;
  },
) {
  const { keyring } = options;

  const missingKey = () =>
    new AppError(
      "secrets_key_missing",
      "svc has no secrets key, so it cannot store gateway credentials. Set SVC_SECRETS_KEY to 32 random bytes in base64 (`svc secrets generate-key` prints one) and restart the service; nothing was saved.",
    );

  function seal(settingId: string, kind: GatewayKind, credentials: Record<string, string>) {
    if (!keyring?.currentKeyId) throw missingKey();
    return {
      sealed: sealCredentials(keyring, settingId, credentials),
      hint: credentialsHint(kind, credentials),
    };
  }

  async function own(merchantId: string, pgCode: string): Promise<GatewaySettingRow> {
    const row = await merchantsRepo.findGatewayByCode(db, pgCode);
    if (!row || row.merchant_id !== merchantId)
      throw new AppError(
        "not_found",
        `No gateway setting ${pgCode} for merchant ${merchantId}. GET /v1/admin/merchants/${merchantId}/gateways lists its settings.`,
      );
    return row;
  }

  return {
    async list(merchantId: string): Promise<GatewaySettingView[]> {
      const settings = await merchantsRepo.listGateways(db, merchantId);
      // None for a merchant that does not exist is a wrong id, not an empty list.
      if (settings.length === 0 && !(await merchantsRepo.findMerchant(db, merchantId)))
        throw noMerchant(merchantId);
      return settings.map(gatewaySettingView);
    },

    async get(merchantId: string, pgCode: string): Promise<GatewaySettingView> {
      return gatewaySettingView(await own(merchantId, pgCode));
    },

    /**
     * Creates a setting. A real gateway's credentials are required and sealed before anything
     * is written; without SVC_SECRETS_KEY nothing is saved (503 secrets_key_missing).
     */
    async create(merchantId: string, input: GatewaySettingInput): Promise<GatewaySettingView> {
      const errors = new FieldErrors();
      if (!PG_CODE.test(input.pg_code))
        errors.add(
          "pg_code",
          "must be 1–64 lowercase letters, digits, - or _, starting with a letter or digit",
        );
      if (!(GATEWAY_KINDS as readonly string[]).includes(input.kind))
        errors.add("kind", `must be one of ${GATEWAY_KINDS.join(", ")}`);
      for (const c of input.currencies)
        if (!isCurrency(c)) errors.add("currencies", `"${c}" is not an ISO 4217 currency code`);
      errors.throwIfAny();
      const kind = input.kind as GatewayKind;
      const operation = input.operation ?? "purchase";
      checkKindRules(kind, input.currencies, operation, errors);
      const apiBaseUrl = resolveBaseUrl(kind, input, errors) ?? null;
      if (needsCredentials(kind)) checkCredentials(kind, input.credentials ?? {}, errors);
      else if (input.credentials) checkCredentials(kind, input.credentials, errors);
      if (input.notification_secret && needsCredentials(kind))
        errors.add("notification_secret", `a ${kind} gateway takes its signing secret among its credentials`);
      errors.throwIfAny();
      if (!(await merchantsRepo.findMerchant(db, merchantId))) throw noMerchant(merchantId);
      const id = newId("gws");
      let secret: string | null = null;
      let sealed: { sealed: string; hint: Record<string, string> } | undefined;
      if (needsCredentials(kind)) sealed = seal(id, kind, input.credentials as Record<string, string>);
      else {
        // The sandbox signs each setting's notifications with a secret of its own, derived from
        // its master secret (SVC_GATEWAY_SECRET) and the pg_code: no two settings share one.
        secret = input.notification_secret || options.defaultNotificationSecret?.(input.pg_code) || null;
        if (!secret)
          throw new AppError(
            "validation_failed",
            "Give notification_secret: the gateway signs its notifications with it.",
            {
              errors: { notification_secret: ["is required"] },
            },
          );
      }
      const row = await merchantsRepo.insertGateway(db, {
        id,
        merchant_id: merchantId,
        pg_code: input.pg_code,
        name: input.name ?? input.pg_code,
        kind,
        operation,
        currencies: [...new Set(input.currencies)],
        notification_secret: secret,
        wallet_a_merchant_identifier: input.wallet_a_merchant_identifier ?? null,
        credentials: sealed?.sealed ?? null,
        credentials_hint: sealed?.hint ?? null,
        api_base_url: apiBaseUrl,
      });
      if (!row)
        throw new AppError(
          "conflict",
          `The pg_code ${input.pg_code} is taken; gateway codes are unique across the service.`,
        );
      return gatewaySettingView(row);
    },

    /**
     * Changes a setting. `credentials` may give only the fields that change (the others are
     * kept, opened and sealed again together); `api_base_url: null` goes back to the production host.
     */
    async update(
      merchantId: string,
      pgCode: string,
      input: GatewaySettingUpdate,
    ): Promise<GatewaySettingView> {
      const row = await own(merchantId, pgCode);
      const errors = new FieldErrors();
      for (const c of input.currencies ?? [])
        if (!isCurrency(c)) errors.add("currencies", `"${c}" is not an ISO 4217 currency code`);
      checkKindRules(row.kind, input.currencies ?? row.currencies, input.operation ?? row.operation, errors);
      const apiBaseUrl = resolveBaseUrl(row.kind, input, errors);
      // Saved credentials are never sent to a host they were not given for: a host of the
      // setting's own (a stand-in, a proxy) needs every credential again; the gateway's own hosts
      // (production, KNET's test host) do not.
      if (
        row.credentials &&
        apiBaseUrl &&
        apiBaseUrl !== row.api_base_url &&
        !officialHost(row.kind, apiBaseUrl)
      )
        for (const name of Object.keys(CREDENTIAL_FIELDS[row.kind] ?? {}))
          if (input.credentials?.[name] === undefined)
            errors.add(
              `credentials.${name}`,
              "give it again with a new api_base_url: saved credentials are never sent to a host they were not given for",
            );
      let merged: Record<string, string> | undefined;
      // Without a key nothing can be sealed (nor the saved fields opened to merge): say that first.
      if (input.credentials && !keyring?.currentKeyId) throw missingKey();
      if (input.credentials) {
        // Partial only when the saved ones can be opened to fill in the rest.
        let saved: Record<string, string> | undefined;
        try {
          saved = row.credentials ? openCredentials(keyring, row) : undefined;
        } catch {
          saved = undefined;
        }
        checkCredentials(row.kind, input.credentials, errors, saved !== undefined);
        const missing = Object.keys(CREDENTIAL_FIELDS[row.kind] ?? {}).filter(
          (n) => input.credentials?.[n] === undefined,
        );
        if (row.credentials && saved === undefined && missing.length > 0)
          errors.add(
            "credentials",
            "the saved credentials cannot be opened with this service's SVC_SECRETS_KEY (nor SVC_SECRETS_PREVIOUS_KEYS), so they cannot be kept: give every field again",
          );
        merged = { ...saved, ...(input.credentials as Record<string, string>) };
      }
      errors.throwIfAny();
      const patch: GatewaySettingPatch = {
        name: input.name,
        operation: input.operation,
        currencies: input.currencies && [...new Set(input.currencies)],
        api_base_url: apiBaseUrl,
      };
      if (merged) {
        const sealed = seal(row.id, row.kind, merged);
        patch.credentials = sealed.sealed;
        patch.credentials_hint = sealed.hint;
      }
      const updated = await gatewaySettingsRepo.update(db, row.id, patch);
      return gatewaySettingView(updated);
    },

    /**
     * Seals every stored credential again under the current key (after SVC_SECRETS_KEY changed
     * and the old key moved to SVC_SECRETS_PREVIOUS_KEYS). Idempotent; concurrent runs are safe.
     */
    async rotate(): Promise<{
      key_id: string;
      resealed: number;
      already_current: number;
      cannot_open: string[];
    }> {
      if (!keyring?.currentKeyId)
        throw new AppError("secrets_key_missing", "Set SVC_SECRETS_KEY (the new key) before rotating.");
      let resealed = 0;
      let current = 0;
      // Settings sealed with a key this process does not hold are named, not fatal: the others rotate.
      const cannotOpen: string[] = [];
      for (const row of await gatewaySettingsRepo.withCredentials(db)) {
        if (keyring.keyIdOf(row.credentials) === keyring.currentKeyId) {
          current += 1;
          continue;
        }
        let plain: Record<string, string>;
        try {
          plain = openCredentials(keyring, row);
        } catch {
          cannotOpen.push(row.pg_code);
          continue;
        }
        if (
          await gatewaySettingsRepo.reseal(
            db,
            row.id,
            row.credentials,
            sealCredentials(keyring, row.id, plain),
          )
        )
          resealed += 1;
      }
      return { key_id: keyring.currentKeyId, resealed, already_current: current, cannot_open: cannotOpen };
    },

    /**
     * Writes each saved hint again where it is not what {@link credentialsHint} shows now (a
     * Stripe key's hint gained its mode, `sk_live_…`, which is what makes its payments' webhooks
     * say `is_sandbox: false`). Run at start; idempotent; settings it cannot open are left as they
     * are, and returned (`cannotOpen`, their pg_codes) for the start to say so: a wrong or missing
     * SVC_SECRETS_KEY otherwise shows only as 503s on those settings' payments.
     */
    async refreshHints(): Promise<{ refreshed: number; cannotOpen: string[] }> {
      const rows = await gatewaySettingsRepo.withCredentials(db);
      if (!keyring) return { refreshed: 0, cannotOpen: rows.map((row) => row.pg_code) };
      let refreshed = 0;
      const cannotOpen: string[] = [];
      for (const row of rows) {
        let hint: Record<string, string>;
        try {
          hint = credentialsHint(row.kind, openCredentials(keyring, row));
        } catch {
          cannotOpen.push(row.pg_code);
          continue;
        }
        const saved = row.credentials_hint ?? {};
        const same =
          Object.keys(saved).length === Object.keys(hint).length &&
          Object.entries(hint).every(([name, value]) => saved[name] === value);
        if (!same) if (await gatewaySettingsRepo.rehint(db, row.id, row.credentials, hint)) refreshed += 1;
      }
      return { refreshed, cannotOpen };
    },
  };
}

export type GatewaySettingsService = ReturnType<typeof createGatewaySettingsService>;
