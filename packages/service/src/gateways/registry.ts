/**
 * Which adapter serves which gateway kind. Today every kind is a sandbox gateway reached over
 * HTTP; a real gateway is added by returning its own adapter for its kind here.
 */
import type { GatewayKind } from "@svc/protocol";
import type { GatewayAdapter } from "./adapter.js";
import { SandboxGatewayAdapter } from "./sandbox/adapter.js";

export {
  formsOfPaymentFor,
  GATEWAY_CAPABILITIES,
  type GatewayCapabilities,
  isQueued,
  operationsFor,
} from "./capabilities.js";

export interface GatewayRegistryOptions {
  /** Base URL of the sandbox gateway server (startSandboxGateway's `url`). */
  sandboxBaseUrl: string;
  timeoutMs?: number;
}

export interface GatewayRegistry {
  /** The adapter for `kind`; the same instance on every call, so its connection pool is shared. */
  adapterFor(kind: GatewayKind): GatewayAdapter;
  /** Closes every adapter's connections (on service shutdown). */
  close(): Promise<void>;
}

/**
 * @example
 * const gateways = createGatewayRegistry({ sandboxBaseUrl: sandbox.url });
 * const result = await gateways.adapterFor("ndebit").pay(request);
 */
export function createGatewayRegistry(options: GatewayRegistryOptions): GatewayRegistry {
  const adapters = new Map<GatewayKind, SandboxGatewayAdapter>();
  return {
    adapterFor(kind) {
      let adapter = adapters.get(kind);
      if (!adapter) {
        adapter = new SandboxGatewayAdapter({
          kind,
          baseUrl: options.sandboxBaseUrl,
          timeoutMs: options.timeoutMs,
        });
        adapters.set(kind, adapter);
      }
      return adapter;
    },
    async close() {
      await Promise.all([...adapters.values()].map((adapter) => adapter.close()));
      adapters.clear();
    },
  };
}
