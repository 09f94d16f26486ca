import { describe, expect, it } from "vitest";
import { SandboxGatewayAdapter } from "./adapter.js";
import {
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_S,
  signSandboxPayload,
  verifySandboxSignature,
} from "./signature.js";

const SECRET = "sandbox_signing_secret";
// Never contacted: verification and parsing are local.
const adapter = new SandboxGatewayAdapter({ kind: "sandbox", baseUrl: "http://127.0.0.1:9" });
const body = Buffer.from(
  JSON.stringify({
    type: "operation_result",
    notification_id: "ntf_1",
    reference_number: "ref_1",
    status: "success",
    pg_response: { is_sandbox: true },
  }),
);

describe("sandbox-signature", () => {
  it("accepts a good signature, whatever the header name's case", () => {
    const header = signSandboxPayload(SECRET, body);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: header }, SECRET)).toBe(true);
    expect(adapter.verifyNotification(body, { "Sandbox-Signature": header }, SECRET)).toBe(true);
  });

  it("refuses a tampered body, a wrong secret, a missing or malformed header", () => {
    const header = signSandboxPayload(SECRET, body);
    const tampered = Buffer.from(body.toString().replace("success", "rejected"));
    expect(adapter.verifyNotification(tampered, { [SIGNATURE_HEADER]: header }, SECRET)).toBe(false);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: header }, "other_secret")).toBe(false);
    expect(adapter.verifyNotification(body, {}, SECRET)).toBe(false);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: "t=abc,v1=zz" }, SECRET)).toBe(false);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: header }, "")).toBe(false);
  });

  it("refuses a timestamp more than 5 minutes away, either way", () => {
    const nowS = Math.floor(Date.now() / 1000);
    const stale = signSandboxPayload(SECRET, body, nowS - SIGNATURE_TOLERANCE_S - 1);
    const future = signSandboxPayload(SECRET, body, nowS + SIGNATURE_TOLERANCE_S + 1);
    const edge = signSandboxPayload(SECRET, body, nowS - SIGNATURE_TOLERANCE_S + 5);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: stale }, SECRET)).toBe(false);
    expect(adapter.verifyNotification(body, { [SIGNATURE_HEADER]: future }, SECRET)).toBe(false);
    expect(verifySandboxSignature(body, edge, SECRET)).toBe(true);
  });

  it("accepts when any of several v1 signatures matches (secret rotation)", () => {
    const nowS = Math.floor(Date.now() / 1000);
    const good = signSandboxPayload(SECRET, body, nowS).split("v1=")[1];
    const old = signSandboxPayload("old_secret", body, nowS).split("v1=")[1];
    expect(verifySandboxSignature(body, `t=${nowS},v1=${old},v1=${good}`, SECRET)).toBe(true);
  });
});

describe("parseNotification", () => {
  it("maps operation_result onto the adapter's union", () => {
    expect(adapter.parseNotification(body)).toEqual({
      type: "operation_result",
      referenceNumber: "ref_1",
      status: "success",
      pgResponse: { is_sandbox: true },
      notificationId: "ntf_1",
    });
  });

  it("throws a clear error on non-JSON, unknown types and missing fields", () => {
    expect(() => adapter.parseNotification(Buffer.from("not json"))).toThrow(/not JSON/);
    expect(() => adapter.parseNotification(Buffer.from('{"type":"surprise","notification_id":"n"}'))).toThrow(
      /unknown type "surprise"/,
    );
    expect(() =>
      adapter.parseNotification(
        Buffer.from('{"type":"operation","notification_id":"n","operation":"refund"}'),
      ),
    ).toThrow(/pg_response/);
    expect(() =>
      adapter.parseNotification(
        Buffer.from('{"type":"payment_result","notification_id":"n","pg_reference":"p","result":{}}'),
      ),
    ).toThrow(/result/);
  });
});
