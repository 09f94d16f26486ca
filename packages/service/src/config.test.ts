/** Configuration parsing: booleans and integers from SVC_* variables, with clear errors on junk. */
import { describe, expect, it } from "vitest";
import { loadConfig, redactConfig } from "./config.js";

describe("loadConfig", () => {
  it("SVC_WEBHOOK_ALLOW_PRIVATE: off by default; true or false; anything else is refused", () => {
    expect(loadConfig({}).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE: "" }).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE: "true" }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE: "false" }).webhookAllowPrivate).toBe(false);
    // Read as false before: an operator who meant "allow" got a guard they did not expect.
    for (const junk of ["yes", "1", "TRUE", "true "])
      expect(() => loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE: junk })).toThrow(
        `SVC_WEBHOOK_ALLOW_PRIVATE must be true or false, got "${junk}"`,
      );
  });

  it("SVC_WEBHOOK_POLL_MS: the worker's fallback poll, 1 s by default", () => {
    expect(loadConfig({}).webhookPollMs).toBe(1_000);
    expect(loadConfig({ SVC_WEBHOOK_POLL_MS: "600000" }).webhookPollMs).toBe(600_000);
    expect(() => loadConfig({ SVC_WEBHOOK_POLL_MS: "soon" })).toThrow(
      'SVC_WEBHOOK_POLL_MS must be an integer between 50 and 3600000, got "soon"',
    );
  });

  it("SVC_WEBHOOK_RETENTION_DAYS: 90 by default; 0 keeps everything; 7 to 3650 days; anything else is refused", () => {
    expect(loadConfig({}).webhookRetentionDays).toBe(90);
    expect(loadConfig({ SVC_WEBHOOK_RETENTION_DAYS: "0" }).webhookRetentionDays).toBe(0);
    expect(loadConfig({ SVC_WEBHOOK_RETENTION_DAYS: "7" }).webhookRetentionDays).toBe(7);
    expect(loadConfig({ SVC_WEBHOOK_RETENTION_DAYS: "3650" }).webhookRetentionDays).toBe(3650);
    for (const junk of ["1", "6", "3651", "-1", "30d", "7.5"])
      expect(() => loadConfig({ SVC_WEBHOOK_RETENTION_DAYS: junk })).toThrow(
        `SVC_WEBHOOK_RETENTION_DAYS must be 0 (keep everything) or a number of days between 7 and 3650, got "${junk}"`,
      );
  });

  it("SVC_GATEWAY_RETENTION_DAYS: 180 by default; 0 keeps everything; 7 to 3650 days; anything else is refused", () => {
    expect(loadConfig({}).gatewayRetentionDays).toBe(180);
    expect(loadConfig({ SVC_GATEWAY_RETENTION_DAYS: "0" }).gatewayRetentionDays).toBe(0);
    expect(loadConfig({ SVC_GATEWAY_RETENTION_DAYS: "7" }).gatewayRetentionDays).toBe(7);
    for (const junk of ["3", "3651", "half a year"])
      expect(() => loadConfig({ SVC_GATEWAY_RETENTION_DAYS: junk })).toThrow(
        `SVC_GATEWAY_RETENTION_DAYS must be 0 (keep everything) or a number of days between 7 and 3650, got "${junk}"`,
      );
  });

  it("SVC_TRUST_PROXY: off by default; true, a number of hops or proxy addresses; anything else is refused", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ SVC_TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ SVC_TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" }).trustProxy).toBe("10.0.0.0/8, 127.0.0.1");
    expect(() => loadConfig({ SVC_TRUST_PROXY: "the load balancer" })).toThrow(/SVC_TRUST_PROXY must be/);
  });
});

describe("redactConfig", () => {
  it("shows no secret, nor any of its characters: tokens, keys and the database password in the URL and its query", () => {
    const config = loadConfig({
      SVC_ADMIN_TOKEN: "adm-redact-0123456789abcdef",
      SVC_METRICS_TOKEN: "met-redact-0123456789abcdef",
      SVC_SECRETS_KEY: Buffer.alloc(32, 5).toString("base64"),
      SVC_DATABASE_URL: "postgres://svc:pw-in-authority@db.internal/svc?sslmode=require&password=pw-in-query",
    });
    const shown = JSON.stringify(redactConfig(config));
    for (const secret of [
      "adm-",
      "met-",
      Buffer.alloc(32, 5).toString("base64"),
      "pw-in-authority",
      "pw-in-query",
    ])
      expect(shown).not.toContain(secret);
    expect(redactConfig(config)).toMatchObject({
      adminToken: "***(27 chars)",
      databaseUrl: "postgres://svc:***@db.internal/svc?sslmode=require&password=***",
    });
  });
});

describe("SVC_DATABASE_URL", () => {
  it("is refused at start without its scheme, or when its password cuts it short, naming the variable and never echoing it", () => {
    // Without the scheme the driver took it for a socket path and connected to a local server.
    expect(() => loadConfig({ SVC_DATABASE_URL: "db.example:5432/svc" })).toThrow(
      "SVC_DATABASE_URL must start with postgres:// or postgresql://",
    );
    const raw = "postgres://svc:pa#ss-word@db.example/svc";
    expect(() => loadConfig({ SVC_DATABASE_URL: raw })).toThrow(
      /^SVC_DATABASE_URL is not a valid URL: percent-encode/,
    );
    try {
      loadConfig({ SVC_DATABASE_URL: raw });
    } catch (error) {
      expect((error as Error).message).not.toContain("ss-word");
    }
    for (const fine of [
      "postgres://svc:pa%23ss@db.example:5432/svc",
      "postgresql://user@localhost/db?host=/var/run/postgresql",
    ])
      expect(loadConfig({ SVC_DATABASE_URL: fine }).databaseUrl).toBe(fine);
  });
});
