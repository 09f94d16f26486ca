/** The real gateways' connectors, by kind: what the registry builds a KNET or Stripe setting's adapter with. */
import type { GatewayRegistryOptions } from "./registry.js";
import { createKnetAdapter } from "./knet/adapter.js";
import { createStripeAdapter } from "./stripe/adapter.js";

export const GATEWAY_CONNECTORS: NonNullable<GatewayRegistryOptions["factories"]> = {
  knet: createKnetAdapter,
  stripe: createStripeAdapter,
};
