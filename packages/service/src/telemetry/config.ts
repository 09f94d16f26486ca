/**
 * Whether the standard OTEL_* variables ask for traces. svc starts the OpenTelemetry SDK only
 * then: unset, nothing is loaded, registered or patched (docs/operations.md, Tracing).
 *
 * The specification's defaults would export OTLP to localhost whenever an SDK runs; svc needs a
 * sign that someone collects traces before it pays for them, so one of these must be set:
 * `OTEL_TRACES_EXPORTER` naming an exporter the SDK has (otlp, console, zipkin),
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. `OTEL_SDK_DISABLED=true`
 * turns it off whatever else is set, and so does an OTEL_TRACES_EXPORTER with which the SDK would
 * export nothing (`none` first, or only names it does not know). Values are read as the SDK reads
 * them: an empty one is unset, list entries are trimmed, names are case-sensitive.
 */

type Env = Record<string, string | undefined>;

/** The trace exporters @opentelemetry/sdk-node builds from OTEL_TRACES_EXPORTER. */
const SDK_TRACE_EXPORTERS = new Set(["otlp", "zipkin", "console"]);

function value(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === "" ? undefined : v;
}

/**
 * True when the environment asks for traces (see the module comment).
 *
 * @example
 * tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }); // true
 * tracingRequested({ OTEL_SERVICE_NAME: "svc" }); // false: nowhere to send them
 */
export function tracingRequested(env: Env): boolean {
  if (value(env, "OTEL_SDK_DISABLED")?.trim().toLowerCase() === "true") return false;
  const exporters = value(env, "OTEL_TRACES_EXPORTER")
    ?.split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && name !== "null");
  if (exporters && exporters.length > 0) {
    // As the SDK reads the list: `none` first exports nothing, `none` after others means otlp.
    if (exporters[0] === "none") return false;
    return exporters.includes("none") || exporters.some((name) => SDK_TRACE_EXPORTERS.has(name));
  }
  return (
    value(env, "OTEL_EXPORTER_OTLP_ENDPOINT") !== undefined ||
    value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== undefined
  );
}
