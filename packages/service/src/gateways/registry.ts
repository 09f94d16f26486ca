/**
 * Which adapter serves which gateway setting. An adapter is built per setting (a real gateway's
 * adapter holds that merchant's credentials, opened from their sealed form only here, in memory)
 * and kept while the setting is unchanged; a changed setting gets a new one. The sandbox kinds
 * share one connection pool to the sandbox server.
 */
import { SANDBOX_GATEWAY_KINDS, type GatewayKind, type SandboxGatewayKind } from "@svc/protocol";
import type { Pool } from "undici";
import type { Keyring } from "../secrets/keyring.js";
import type { GatewayAdapter } from "./adapter.js";
import { openCredentials, type GatewayConnection } from "./connection.js";
import { SandboxGatewayAdapter, sandboxPool } from "./sandbox/adapter.js";

export {
  formsOfPaymentFor,
  GATEWAY_CAPABILITIES,
  type GatewayCapabilities,
  isQueued,
  operationsFor,
} from "./capabilities.js";
export type { GatewayConnection } from "./connection.js";

/** Builds the adapter of a real gateway's setting from its opened credentials. */
export type AdapterFactory = (
  connection: GatewayConnection,
  credentials: Record<string, string>,
  options: { timeoutMs: number },
) => GatewayAdapter;

export interface GatewayRegistryOptions {
  /** Base URL of the sandbox gateway server (startSandboxGateway's `url`). */
  sandboxBaseUrl: string;
  timeoutMs?: number;
  /** Opens the settings' sealed credentials (SVC_SECRETS_KEY). */
  keyring?: Keyring;
  /** The real connectors, by kind (wired in server.ts). */
  factories?: Partial<Record<Exclude<GatewayKind, SandboxGatewayKind>, AdapterFactory>>;
}

export interface GatewayRegistry {
  /** The adapter of `setting`; the same instance while the setting is unchanged. */
  adapterFor(setting: GatewayConnection): GatewayAdapter;
  /** Closes every adapter's connections (on service shutdown). */
  close(): Promise<void>;
}

/** How many settings' adapters are kept; beyond it the least recently built is dropped. */
const MAX_ADAPTERS = 5_000;
/** An adapter replaced by a changed setting is closed this long after, so calls in flight finish. */
const REPLACED_CLOSE_MS = 60_000;

const isSandbox = (kind: GatewayKind): kind is SandboxGatewayKind =>
  (SANDBOX_GATEWAY_KINDS as readonly string[]).includes(kind);

/**
 * @example
 * const gateways = createGatewayRegistry({ sandboxBaseUrl: sandbox.url, keyring });
 * const result = await gateways.adapterFor(setting).pay(request);
 */
export function createGatewayRegistry(options: GatewayRegistryOptions): GatewayRegistry {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let pool: Pool | undefined;
  const adapters = new Map<string, { fingerprint: string; adapter: GatewayAdapter }>();
  const retired = new Set<GatewayAdapter>();

  function build(setting: GatewayConnection): GatewayAdapter {
    if (isSandbox(setting.kind)) {
      pool ??= sandboxPool(options.sandboxBaseUrl, timeoutMs);
      return new SandboxGatewayAdapter({
        kind: setting.kind,
        baseUrl: options.sandboxBaseUrl,
        timeoutMs,
        notificationSecret: setting.notification_secret ?? "",
        pool,
      });
    }
    const factory = options.factories?.[setting.kind];
    if (!factory) throw new Error(`no connector for gateway kind ${setting.kind} is wired in this process`);
    return factory(setting, openCredentials(options.keyring, setting), { timeoutMs });
  }

  function retire(adapter: GatewayAdapter): void {
    retired.add(adapter);
    setTimeout(() => {
      retired.delete(adapter);
      void adapter.close().catch(() => undefined);
    }, REPLACED_CLOSE_MS).unref();
  }

  return {
    adapterFor(setting) {
      const fingerprint = [
        setting.kind,
        setting.updated_at ? new Date(setting.updated_at).getTime() : "",
        setting.credentials ?? "",
        setting.api_base_url ?? "",
        setting.notification_secret ?? "",
      ].join("|");
      const cached = adapters.get(setting.id);
      if (cached?.fingerprint === fingerprint) return cached.adapter;
      const adapter = build(setting);
      if (cached) {
        adapters.delete(setting.id);
        retire(cached.adapter);
      }
      adapters.set(setting.id, { fingerprint, adapter });
      if (adapters.size > MAX_ADAPTERS) {
        const [oldestId, oldest] = adapters.entries().next().value!;
        adapters.delete(oldestId);
        retire(oldest.adapter);
      }
      return adapter;
    },
    async close() {
      const all = [...[...adapters.values()].map((a) => a.adapter), ...retired];
      adapters.clear();
      retired.clear();
      await Promise.all(all.map((adapter) => adapter.close().catch(() => undefined)));
      await pool?.close();
      pool = undefined;
    },
  };
}
