/**
 * The operator's side of tenancy: merchants, their API keys and dashboard users (gateway
 * settings are gateways/settings.service.ts). Keys are returned once, here, and stored only as hashes.
 */
import { newId, PERMISSIONS, type Permission } from "@svc/protocol";
import { generateApiKey, hashApiKey, type KeyKind, keyHint } from "../auth/keys.js";
import { hashPassword, passwordProblem } from "../auth/passwords.js";
import type { Db, Queryable } from "../db/client.js";
import { AppError, FieldErrors } from "../http/problem.js";
import { newWebhookSecret } from "../webhooks/secrets.js";
import { merchantsRepo } from "./merchants.repo.js";
import { noMerchant } from "../http/not-found.js";

const ROOT_DOMAIN =
  /^(?=.{1,253}$)(localhost|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+|\d{1,3}(\.\d{1,3}){3})(:\d{1,5})?$/;
const USERNAME = /^[A-Za-z0-9@.+\-_]{1,150}$/;
/** A phone number as the checkout takes a customer's (`customer_phone`). */
const PHONE = /^\+?[0-9 ()-]{4,32}$/;

/** What is wrong with a root domain that has the right shape: an address part or a port out of range. */
function rootDomainRange(rootDomain: string): string | undefined {
  const [host, port] = rootDomain.split(":");
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535))
    return "has a port out of range: use 1–65535";
  if (/^[\d.]+$/.test(host!) && host!.split(".").some((part) => Number(part) > 255))
    return "is not an IPv4 address: each part is 0–255";
  return undefined;
}

export function createMerchantsService(
  db: Db,
  options: {
    /** This process forgets a revoked key at once (other processes hear of it by NOTIFY). */
    onKeyRevoked?: (keyHash: string) => void;
  },
) {
  async function issueKey(q: Queryable, merchantId: string, kind: KeyKind, label = "") {
    const key = generateApiKey(kind);
    const id = newId("key");
    await merchantsRepo.insertKey(q, {
      id,
      merchantId,
      kind,
      hash: hashApiKey(key),
      hint: keyHint(key),
      label,
    });
    return { id, kind, key, hint: keyHint(key) };
  }

  return {
    async createMerchant(input: { root_domain: string; name?: string | undefined }) {
      const rootDomain = input.root_domain.toLowerCase();
      const errors = new FieldErrors();
      if (/^[a-z]+:\/\//.test(rootDomain))
        errors.add("root_domain", "must be a domain without a scheme, e.g. shop.example.com");
      else if (!ROOT_DOMAIN.test(rootDomain))
        errors.add("root_domain", "must be a domain name such as shop.example.com");
      else {
        const range = rootDomainRange(rootDomain);
        if (range) errors.add("root_domain", range);
      }
      errors.throwIfAny();
      return db.tx(async (q) => {
        if (await merchantsRepo.findMerchantByDomain(q, rootDomain)) {
          throw new AppError("conflict", `A merchant with root domain ${rootDomain} exists already.`);
        }
        const merchant = await merchantsRepo.insertMerchant(q, {
          id: newId("mer"),
          rootDomain,
          name: input.name ?? rootDomain,
        });
        const privateKey = await issueKey(q, merchant.id, "private", "default");
        const publicKey = await issueKey(q, merchant.id, "public", "default");
        const webhookSecret = newWebhookSecret();
        await q.query("insert into webhook_secrets (id, merchant_id, secret) values ($1, $2, $3)", [
          newId("key"),
          merchant.id,
          webhookSecret,
        ]);
        return {
          id: merchant.id,
          root_domain: merchant.root_domain,
          name: merchant.name,
          private_key: privateKey.key,
          public_key: publicKey.key,
          webhook_secret: webhookSecret,
          created_at: merchant.created_at.toISOString(),
        };
      });
    },

    async getMerchant(merchantId: string) {
      const merchant = await merchantsRepo.findMerchant(db, merchantId);
      if (!merchant) throw noMerchant(merchantId);
      const gateways = await merchantsRepo.listGateways(db, merchantId);
      const keys = await merchantsRepo.listKeys(db, merchantId);
      return {
        id: merchant.id,
        root_domain: merchant.root_domain,
        name: merchant.name,
        keys: keys.map((k) => ({
          ...k,
          created_at: k.created_at.toISOString(),
          revoked_at: k.revoked_at?.toISOString() ?? null,
        })),
        // Secrets stay out: the notification secret entirely, credentials as their hint only.
        gateways: gateways.map(
          ({ notification_secret: _s, merchant_id: _m, credentials: _c, credentials_hint, ...g }) => ({
            ...g,
            credentials: credentials_hint,
          }),
        ),
      };
    },

    async createKey(merchantId: string, kind: KeyKind, label = "") {
      if (!(await merchantsRepo.findMerchant(db, merchantId))) throw noMerchant(merchantId);
      return issueKey(db, merchantId, kind, label);
    },

    async revokeKey(merchantId: string, keyId: string) {
      const hash = await merchantsRepo.revokeKey(db, merchantId, keyId);
      if (!hash)
        throw new AppError(
          "not_found",
          `No key ${keyId} of merchant ${merchantId}. GET /v1/admin/merchants/${merchantId} lists its keys.`,
        );
      options.onKeyRevoked?.(hash);
    },

    async createUser(
      merchantId: string,
      input: {
        username: string;
        email: string;
        password: string;
        first_name?: string;
        last_name?: string;
        phone?: string;
        permissions: string[];
      },
    ) {
      const errors = new FieldErrors();
      if (!USERNAME.test(input.username))
        errors.add("username", "may use only letters, digits and @ . + - _ (at most 150)");
      if (!/^[^\s@]+@[^\s@]+$/.test(input.email) || input.email.length > 254)
        errors.add("email", "must be an email address of at most 254 characters");
      if (input.phone !== undefined && !PHONE.test(input.phone))
        errors.add(
          "phone",
          "must be a phone number of digits, optionally starting with +, e.g. +96550000000",
        );
      const pw = passwordProblem(input.password);
      if (pw) errors.add("password", pw);
      for (const p of input.permissions) {
        if (!(PERMISSIONS as readonly string[]).includes(p))
          errors.add("permissions", `"${p}" is not one of ${PERMISSIONS.join(", ")}`);
      }
      errors.throwIfAny();
      if (!(await merchantsRepo.findMerchant(db, merchantId))) throw noMerchant(merchantId);
      const user = await merchantsRepo.insertUser(db, {
        merchantId,
        username: input.username,
        email: input.email,
        firstName: input.first_name ?? null,
        lastName: input.last_name ?? null,
        phone: input.phone ?? null,
        passwordHash: await hashPassword(input.password),
        permissions: [...new Set(input.permissions)] as Permission[],
      });
      if (!user) throw new AppError("conflict", `The username ${input.username} is taken; choose another.`);
      return user;
    },
  };
}

export type MerchantsService = ReturnType<typeof createMerchantsService>;
