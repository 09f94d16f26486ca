import { describe, expect, it } from "vitest";
import { operationPayload, paymentPayload } from "../test/fixtures.js";
import { parseOperationWebhook, parsePaymentWebhook, type WebhookVerificationError } from "./index.js";

const signed = () => ({ ...operationPayload(), signature: "ab".repeat(32) });

function issuesOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    expect((err as WebhookVerificationError).code).toBe("invalid_payload");
    return (err as WebhookVerificationError).issues;
  }
  return [];
}

describe("parseOperationWebhook", () => {
  it("returns the payload typed by result", () => {
    const op = parseOperationWebhook(signed());
    expect(op.result).toBe("success");
    if (op.result === "success") expect(op.txn.state).toBe("refunded");
  });

  it("normalises txn.state spellings", () => {
    const queued = {
      ...signed(),
      result: "queued",
      success: false,
      txn: { ...signed().txn, state: "refund-queued" },
    };
    expect(parseOperationWebhook(queued).txn.state).toBe("refund_queued");
    const captured = { ...signed(), operation: "capture", txn: { ...signed().txn, state: "captured" } };
    expect(parseOperationWebhook(captured).txn.state).toBe("paid");
    const rejected = {
      ...signed(),
      result: "rejected",
      success: false,
      txn: { ...signed().txn, state: "refund-rejected" },
    };
    expect(parseOperationWebhook(rejected).txn.state).toBe("refund_rejected");
  });

  it("lists every broken rule at once", () => {
    const bad = {
      ...signed(),
      amount: "10,5",
      is_sandbox: "yes",
      operation: "chargeback",
      result: "success",
      success: false,
      source: "api",
      timestamp_utc: "2026-02-30 10:00:00",
      pg_response: "<html>",
      txn: { amount: "-1", currency_code: "kwd", order_no: "o".repeat(129), session_id: 5, state: "lost" },
    };
    const issues = issuesOf(() => parseOperationWebhook(bad));
    for (const fragment of [
      "amount: expected a decimal string",
      "is_sandbox: expected true or false",
      "operation: expected one of capture, refund, void",
      "source: expected one of input, pg",
      "success: must be true when result is success",
      "timestamp_utc: expected UTC",
      "pg_response: expected an object",
      "txn.amount: expected a decimal string",
      "txn.currency_code: expected an ISO 4217 code",
      "txn.order_no: at most 128 characters, got 129",
      "txn.session_id: expected a non-empty string",
      'txn.state: expected a child state like refunded, got "lost"',
    ]) {
      expect(
        issues.some((i) => i.startsWith(fragment)),
        fragment,
      ).toBe(true);
    }
  });

  it("accepts only real calendar times as timestamp_utc", () => {
    const time = (timestamp_utc: unknown) =>
      !issuesOf(() => parseOperationWebhook({ ...signed(), timestamp_utc })).length;
    for (const ok of [
      "2026-11-21 10:00:00",
      "2024-02-29 23:59:59",
      "2000-01-01 00:00:00",
      "1999-12-31 23:59:59",
    ]) {
      expect(time(ok), ok).toBe(true);
    }
    for (const bad of [
      "2026-02-30 10:00:00",
      "2025-02-29 10:00:00",
      "2026-04-31 10:00:00",
      "2026-13-01 10:00:00",
      "2026-01-00 10:00:00",
      "2026-01-01 24:00:00",
      "2026-01-01 10:60:00",
      "2026-06-30 23:59:60",
      "2026-01-01T10:00:00",
      "2026-01-01 10:00:00Z",
      "2026-01-01 10:00:00.5",
      "2026-1-01 10:00:00",
      " 2026-01-01 10:00:00",
      "2026-01-01  10:00:00",
      "2026-01-01 10:00",
      "+002026-01-01 10:00:00",
      "",
      5,
      null,
    ]) {
      expect(time(bad), String(bad)).toBe(false);
    }
  });

  it("requires every required field", () => {
    const issues = issuesOf(() => parseOperationWebhook({}));
    expect(issues).toEqual(
      expect.arrayContaining([
        "amount: required",
        "reference_number: required",
        "session_id: required",
        "signature: required",
      ]),
    );
    expect(issuesOf(() => parseOperationWebhook([]))).toEqual(["payload: expected a JSON object"]);
  });

  it("checks that txn.state matches the operation and result", () => {
    const mismatched = { ...signed(), operation: "void" };
    expect(issuesOf(() => parseOperationWebhook(mismatched))).toEqual([
      "txn.state: refunded does not match a void with result success",
    ]);
  });

  it("enforces the initiator limits and username characters", () => {
    const ok = { ...signed(), initiator: { id: 1, username: "ünïcode.user+1@x-y_z", email: "a@b.c" } };
    expect(parseOperationWebhook(ok).initiator?.username).toBe("ünïcode.user+1@x-y_z");
    const bad = {
      ...signed(),
      initiator: {
        id: 1.5,
        first_name: "f".repeat(33),
        last_name: "l".repeat(33),
        username: "has space",
        email: "e".repeat(255),
        phone: "1".repeat(129),
      },
    };
    expect(issuesOf(() => parseOperationWebhook(bad))).toEqual([
      "initiator.id: expected an integer, got 1.5",
      "initiator.first_name: at most 32 characters, got 33",
      "initiator.last_name: at most 32 characters, got 33",
      'initiator.username: expected letters, digits, @ . + - _, got "has space"',
      "initiator.email: at most 254 characters, got 255",
      "initiator.phone: at most 128 characters, got 129",
    ]);
    const long = { ...signed(), initiator: { id: 1, username: "u".repeat(151), email: "a@b" } };
    expect(issuesOf(() => parseOperationWebhook(long))).toEqual([
      "initiator.username: at most 150 characters, got 151",
    ]);
  });

  it("counts characters, not UTF-16 units, for limits", () => {
    const emoji = {
      ...signed(),
      initiator: { id: 1, first_name: "😀".repeat(32), username: "u", email: "a@b" },
    };
    expect(parseOperationWebhook(emoji).initiator?.first_name).toHaveLength(64);
  });

  it("refuses empty strings, in required and optional fields alike", () => {
    const empty = {
      ...signed(),
      initiator: { id: 1, first_name: "", username: "u", email: "" },
      order_no: "",
      pg_code: "",
      reference_number: "",
      session_id: "",
      signature: "",
      txn: { ...signed().txn, order_no: "", session_id: "" },
    };
    expect(issuesOf(() => parseOperationWebhook(empty))).toEqual([
      'initiator.first_name: expected a non-empty string, got ""',
      'initiator.email: expected a non-empty string, got ""',
      'order_no: expected a non-empty string, got ""',
      'pg_code: expected a non-empty string, got ""',
      'reference_number: expected a non-empty string, got ""',
      'session_id: expected a non-empty string, got ""',
      'signature: expected a non-empty string, got ""',
      'txn.session_id: expected a non-empty string, got ""',
      'txn.order_no: expected a non-empty string, got ""',
    ]);
  });

  it("limits order_no to 128 characters, like txn.order_no", () => {
    const at = (order_no: string) => ({ ...signed(), order_no, txn: { ...signed().txn, order_no } });
    expect(parseOperationWebhook(at("o".repeat(128))).order_no).toHaveLength(128);
    expect(issuesOf(() => parseOperationWebhook(at("o".repeat(129))))).toEqual([
      "order_no: at most 128 characters, got 129",
      "txn.order_no: at most 128 characters, got 129",
    ]);
  });

  it("accepts the metadata an endpoint with include_metadata gets, as an object", () => {
    const metadata = { order: "1001" };
    expect(parseOperationWebhook({ ...signed(), metadata }).metadata).toEqual(metadata);
    expect(issuesOf(() => parseOperationWebhook({ ...signed(), metadata: "order=1001" }))).toEqual([
      'metadata: expected an object, got "order=1001"',
    ]);
  });

  it("refuses an event key on an operation", () => {
    expect(issuesOf(() => parseOperationWebhook({ ...signed(), event: "payment" }))[0]).toMatch(/^event:/);
  });
});

describe("parsePaymentWebhook", () => {
  const payment = () => ({ ...paymentPayload(), signature: "ab".repeat(32) });

  it("returns the payment with normalised child states", () => {
    const p = payment();
    p.transactions.push({ ...p.transactions[0]!, state: "refund-queued" as "refund_queued" });
    const parsed = parsePaymentWebhook(p);
    expect(parsed.transactions.map((t) => t.state)).toEqual(["refunded", "refund_queued"]);
    expect(parsePaymentWebhook({ ...payment(), pg_code: null, form_of_payment: null }).pg_code).toBeNull();
  });

  it("validates every field", () => {
    const bad = {
      ...payment(),
      event: "payments",
      state: "settled",
      operation: "refund",
      created_via: "cli",
      type: "pos",
      captured_amount: 1,
      transactions: [{ ...payment().transactions[0], created_at: "yesterday", state: "x" }, 7],
    };
    const issues = issuesOf(() => parsePaymentWebhook(bad));
    for (const fragment of [
      "event: expected one of payment",
      "state: expected one of paid, authorized, failed, canceled, expired",
      "operation: expected one of purchase, authorize",
      "created_via: expected one of api, dashboard",
      "type: expected one of e_commerce, payment_request",
      "captured_amount: expected a decimal string",
      "transactions[0].created_at: expected ISO 8601 UTC",
      'transactions[0].state: expected a child state like refunded, got "x"',
      "transactions[1]: expected an object",
    ]) {
      expect(
        issues.some((i) => i.startsWith(fragment)),
        fragment,
      ).toBe(true);
    }
    const { pg_code: _gone, ...noPg } = payment();
    expect(issuesOf(() => parsePaymentWebhook(noPg))).toEqual(["pg_code: required"]);
  });

  it("accepts metadata as an object, or none", () => {
    const metadata = { order: "1001", note: "" };
    expect(parsePaymentWebhook({ ...payment(), metadata }).metadata).toEqual(metadata);
    expect(parsePaymentWebhook(payment()).metadata).toBeUndefined();
    expect(issuesOf(() => parsePaymentWebhook({ ...payment(), metadata: ["a"] }))).toEqual([
      'metadata: expected an object, got ["a"]',
    ]);
  });

  it("refuses empty strings; pg_code and form_of_payment may be null, not empty", () => {
    const p = payment();
    const empty = {
      ...p,
      session_id: "",
      pg_code: "",
      form_of_payment: "",
      transactions: [{ ...p.transactions[0]!, reference_number: "" }],
    };
    expect(issuesOf(() => parsePaymentWebhook(empty))).toEqual([
      'session_id: expected a non-empty string, got ""',
      'pg_code: expected a non-empty string, got ""',
      'form_of_payment: expected a non-empty string, got ""',
      'transactions[0].reference_number: expected a non-empty string, got ""',
    ]);
  });
});
