/**
 * `@svc/service/telemetry`: starts OpenTelemetry tracing when the OTEL_* variables ask for it
 * (config.ts), before the service's modules are imported. A process entry calls it first and
 * imports the service after it (`svc serve`, `svc dev`):
 *
 * @example
 * const tracing = await startTracing(process.env); // undefined: tracing is off, nothing loaded
 * const { startService } = await import("@svc/service");
 * // … on shutdown: await tracing?.shutdown();
 *
 * This module imports nothing but config.ts and trace-context.ts; the SDK and the
 * instrumentations are loaded only when tracing starts. Instrumentations patch modules as they
 * are loaded: `undici` and Fastify report through diagnostics channels and need nothing, but
 * `pg` must be patched, and svc imports it as an ES module, which require-hooks never see. So an
 * import-in-the-middle loader hook is registered first (module.register, Node ≥ 20.6), told to
 * wrap only the modules the instrumentations name; a module imported before startTracing stays
 * unpatched.
 */
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { tracingRequested } from "./config.js";
import { setTracingActive } from "./trace-context.js";

export { tracingRequested } from "./config.js";
export { tracingActive } from "./trace-context.js";

export interface Tracing {
  /** Sends the spans still buffered and stops the SDK (tracing stays off in this process). */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /**
   * Where spans go, instead of the exporters the environment names; given, tracing starts
   * whatever the environment says (tests, with the SDK's in-memory exporter).
   */
  spanProcessors?: SpanProcessor[];
}

let started: Promise<Tracing | undefined> | undefined;

/** Starts tracing if the environment asks for it (or `spanProcessors` are given); once per process. */
export function startTracing(
  env: Record<string, string | undefined>,
  options: StartTracingOptions = {},
): Promise<Tracing | undefined> {
  if (!options.spanProcessors && !tracingRequested(env)) return Promise.resolve(undefined);
  started ??= start(env, options);
  return started;
}

async function start(
  env: Record<string, string | undefined>,
  options: StartTracingOptions,
): Promise<Tracing> {
  const { register } = await import("node:module");
  const { createAddHookMessageChannel } = await import("import-in-the-middle");
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
  // Instrumentations hook their modules as they are constructed, so after the loader hook.
  const { createTracingSdk } = await import("./sdk.js");
  const sdk = createTracingSdk(env, options);
  sdk.start();
  await waitForAllMessagesAcknowledged();
  setTracingActive(true);
  return {
    async shutdown() {
      setTracingActive(false);
      await sdk.shutdown();
    },
  };
}
