import { describe, expect, it } from "vitest";
import { tracingRequested } from "./config.js";
import { formatTraceparent, parseTraceparent } from "./trace-context.js";

describe("tracingRequested: the OTEL_* variables that turn tracing on", () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: "svc", OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, true],
    [{ OTEL_TRACES_EXPORTER: "otlp" }, true],
    [{ OTEL_TRACES_EXPORTER: "console" }, true],
    [{ OTEL_TRACES_EXPORTER: " none " }, false],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_TRACES_EXPORTER: "none,otlp" }, false], // the SDK stops at a first `none`
    [{ OTEL_TRACES_EXPORTER: "console, none" }, true], // and reads a later one as otlp
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, true],
    [{ OTEL_TRACES_EXPORTER: "jaeger" }, false], // not an exporter the SDK has
    [{ OTEL_TRACES_EXPORTER: "OTLP" }, false], // names are case-sensitive to the SDK
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "" }, false], // empty is unset
    [{ OTEL_TRACES_EXPORTER: "", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_SDK_DISABLED: "TRUE", OTEL_TRACES_EXPORTER: "otlp" }, false],
    [{ OTEL_SDK_DISABLED: "false", OTEL_TRACES_EXPORTER: "otlp" }, true],
  ])("%j → %s", (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });
});

describe("W3C traceparent", () => {
  const header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  it("reads and writes version 00", () => {
    const span = parseTraceparent(header)!;
    expect(span).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
    });
    expect(formatTraceparent(span)).toBe(header);
    expect(formatTraceparent({ ...span, traceFlags: 0 })).toBe(header.replace(/01$/, "00"));
  });

  it.each([
    null,
    "",
    "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
    "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
    `${header}-extra`,
  ])("refuses %j", (value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
