/**
 * `svc webhooks check <url>`: a receiver conformance kit. Sends the receiver the messages a
 * production sender eventually sends — the same one twice, two copies at once, a changed body,
 * old and future timestamps, a wrong secret, a rotation's two signatures, a queued notice after
 * its final result, a payload of a newer version — signed with the receiver's secret, grades
 * each answer against what a correct receiver does, and says how to fix each failure. Only the
 * status codes are seen: "no second effect" is as far as a status code can show it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { canonicalJson } from "@svc/webhooks";
import { CURRENT_PAYLOAD_VERSION, generateSecret, signPayload, signWebhook } from "@svc/webhooks/sign";
import type { Output } from "../lib/output.js";
import { reason } from "../lib/api.js";

export interface CheckOptions {
  url: string;
  secret: string;
  /** Per-request timeout. */
  timeoutMs?: number | undefined;
}

export interface CheckResult {
  name: string;
  description: string;
  expected: string;
  /** What the receiver answered, in order ("no answer" when it did not). */
  answers: string[];
  passed: boolean;
  /** How to fix it, when it failed. */
  fix?: string | undefined;
}

interface Sent {
  status: number | null;
  error?: string;
}

type Grade = { passed: true } | { passed: false; fix: string };

interface Check {
  name: string;
  description: string;
  expected: string;
  run(kit: Kit): Promise<Sent[]>;
  grade(answers: Sent[]): Grade;
}

/** A webhook to send: its payload (signed in its `signature` field) and the request's parts. */
interface Message {
  id: string;
  body: string;
  headers: Record<string, string>;
}

const ok = (s: Sent) => s.status !== null && s.status >= 200 && s.status < 300;
const refused = (s: Sent) =>
  s.status !== null && s.status >= 400 && s.status < 500 && s.status !== 404 && s.status !== 410;
const show = (s: Sent) => (s.status === null ? `no answer (${s.error ?? "?"})` : String(s.status));

/** Advice for an answer that is wrong whatever the check: no answer, 404, 410, 5xx. */
function common(s: Sent): string | undefined {
  if (s.status === null)
    return `The receiver did not answer (${s.error}). Is it running at this URL, and does it answer within 15 s? svc counts no answer as a failure and retries.`;
  if (s.status === 404 || s.status === 405)
    return `The receiver answered ${s.status}: check the URL and that the route accepts POST.`;
  if (s.status === 410)
    return 'The receiver answered 410 Gone: svc takes 410 as "gone for good" and gives the message up at once, with no retry. Never answer 410 unless you mean that.';
  if (s.status >= 500)
    return `The receiver answered ${s.status}: it failed while handling the message. A verification failure is a 4xx (401), not a 5xx; a 5xx makes svc retry the same message until it gives up.`;
  return undefined;
}

const VERIFY_FIRST =
  "Verify before acting: verifyWebhook(rawBody, headers, secret) from @svc/webhooks (or webhookMiddleware / svcWebhooks / createWebhookHandler), and answer 401 when it throws.";

const CHECKS: Check[] = [
  {
    name: "valid",
    description: "a valid, signed operation webhook",
    expected: "2xx",
    run: async (kit) => [await kit.send(await kit.message())],
    grade: ([a]) =>
      ok(a!)
        ? { passed: true }
        : {
            passed: false,
            fix:
              common(a!) ??
              `A valid message was refused (${show(a!)}). Check the secret: it must be the merchant's signing secret (svc listen prints it; the dashboard's webhook settings show it), and verify the raw body's bytes as received.`,
          },
  },
  {
    name: "raw-body",
    description:
      "a valid message whose JSON has whitespace (the signature covers the bytes, not the parsed object)",
    expected: "2xx",
    run: async (kit) => [await kit.send(await kit.message({ pretty: true }))],
    grade: ([a]) =>
      ok(a!)
        ? { passed: true }
        : {
            passed: false,
            fix:
              common(a!) ??
              `Refused (${show(a!)}): the receiver verifies a re-serialised body. Verify the signature over the exact bytes received, before parsing JSON: mount the webhook route before express.json() (or use express.raw({ type: "application/json" })), read request.text() in fetch handlers, and let @svc/webhooks parse it after verifying.`,
          },
  },
  {
    name: "duplicate",
    description: "the same message twice (svc retries after a timeout, so a message can arrive again)",
    expected: "2xx, then 2xx (and no second effect)",
    run: async (kit) => {
      const m = await kit.message();
      return [await kit.send(m), await kit.send(m)];
    },
    grade: ([a, b]) =>
      ok(a!) && ok(b!)
        ? { passed: true }
        : {
            passed: false,
            fix:
              common(ok(a!) ? b! : a!) ??
              "Answer a webhook-id you already handled with 2xx and do nothing again: createDeduper() from @svc/webhooks/dedupe (or a unique index on webhook-id in your database). Refusing the repeat makes svc retry it until it gives up.",
          },
  },
  {
    name: "concurrent",
    description: "two copies of one message at the same moment",
    expected: "one 2xx; the other 2xx or a retryable 409/425/429/503",
    run: async (kit) => {
      const m = await kit.message();
      return Promise.all([kit.send(m), kit.send(m)]);
    },
    grade: (answers) => {
      const accepted = answers.filter(ok).length;
      const retryable = answers.filter((s) => [409, 425, 429, 503].includes(s.status ?? 0)).length;
      if (accepted >= 1 && accepted + retryable === answers.length) return { passed: true };
      const bad = answers.find((s) => !ok(s) && ![409, 425, 429, 503].includes(s.status ?? 0));
      return {
        passed: false,
        fix:
          (bad && common(bad)) ??
          "Two deliveries of one webhook-id can overlap: claim the id atomically (createDeduper's once(), or an insert that fails on a duplicate key) so exactly one handles it; answer the other 2xx once the first finished, or 409 while it runs.",
      };
    },
  },
  {
    name: "tampered-body",
    description: "a signed message whose body was changed afterwards (the amount)",
    expected: "401",
    run: async (kit) => {
      const m = await kit.message();
      return [await kit.send({ ...m, body: m.body.replace('"amount":"1.000"', '"amount":"9.000"') })];
    },
    grade: ([a]) =>
      refused(a!)
        ? { passed: true }
        : {
            passed: false,
            fix: ok(a!) ? `A changed body was accepted. ${VERIFY_FIRST}` : (common(a!) ?? VERIFY_FIRST),
          },
  },
  {
    name: "stale-timestamp",
    description: "a correctly signed message whose webhook-timestamp is 15 minutes old (a replay)",
    expected: "401",
    run: async (kit) => [await kit.send(await kit.message({ timestampOffset: -900 }))],
    grade: ([a]) =>
      refused(a!)
        ? { passed: true }
        : {
            passed: false,
            fix: ok(a!)
              ? "An old message was accepted: refuse webhook-timestamp more than 5 minutes from now (verifyWebhook does; its toleranceSeconds is 300), so a captured request cannot be replayed."
              : (common(a!) ?? VERIFY_FIRST),
          },
  },
  {
    name: "future-timestamp",
    description: "a correctly signed message whose webhook-timestamp is 15 minutes ahead",
    expected: "401",
    run: async (kit) => [await kit.send(await kit.message({ timestampOffset: 900 }))],
    grade: ([a]) =>
      refused(a!)
        ? { passed: true }
        : {
            passed: false,
            fix: ok(a!)
              ? "A message from the future was accepted: the timestamp check must work both ways (5 minutes), as verifyWebhook's does."
              : (common(a!) ?? VERIFY_FIRST),
          },
  },
  {
    name: "wrong-secret",
    description: "a message signed with another secret",
    expected: "401",
    run: async (kit) => [await kit.send(await kit.message({ secrets: [generateSecret()] }))],
    grade: ([a]) =>
      refused(a!)
        ? { passed: true }
        : {
            passed: false,
            fix: ok(a!)
              ? `A message signed with another secret was accepted. ${VERIFY_FIRST}`
              : (common(a!) ?? VERIFY_FIRST),
          },
  },
  {
    name: "rotation",
    description:
      "during a secret rotation: webhook-signature carries a signature by a new secret and one by yours",
    expected: "2xx",
    run: async (kit) => [await kit.send(await kit.message({ secrets: [generateSecret(), kit.secret] }))],
    grade: ([a]) =>
      ok(a!)
        ? { passed: true }
        : {
            passed: false,
            fix:
              common(a!) ??
              "webhook-signature can hold several space-separated signatures (v1,… v1,…) while a secret rotates: accept the message when any of them matches one of your secrets. verifyWebhook does; give it both secrets, the new one first, until the old one expires.",
          },
  },
  {
    name: "out-of-order",
    description:
      "an operation's final result (svc-sequence 2) arriving before its queued notice (svc-sequence 1)",
    expected: "2xx, 2xx",
    run: async (kit) => {
      const reference = `ref_${randomBytes(6).toString("hex")}`;
      const session = `sess_check_${randomBytes(6).toString("hex")}`;
      const final = await kit.message({ result: "success", reference, session, sequence: 2 });
      const queued = await kit.message({ result: "queued", reference, session, sequence: 1 });
      return [await kit.send(final), await kit.send(queued)];
    },
    grade: ([a, b]) =>
      ok(a!) && ok(b!)
        ? { passed: true }
        : {
            passed: false,
            fix:
              common(ok(a!) ? b! : a!) ??
              "Messages can arrive out of order (a retry of an earlier one). Acknowledge both, and do not let a late queued notice undo its final result: isQueued() from @svc/webhooks/rules, keyed by reference_number, or compare svc-sequence (createSequenceTracker from @svc/webhooks/sequence).",
          },
  },
  {
    name: "newer-version",
    description:
      "a correctly signed message of a payload version the receiver cannot know (svc-webhook-version 2999-01-01)",
    expected: "4xx, not 2xx (svc keeps it and retries; upgrade to read it)",
    run: async (kit) => [await kit.send(await kit.message({ version: "2999-01-01" }))],
    grade: ([a]) =>
      refused(a!)
        ? { passed: true }
        : {
            passed: false,
            fix: ok(a!)
              ? "A payload of an unknown version was accepted: its fields may have changed. Check svc-webhook-version (checkWebhookVersion from @svc/webhooks/sequence; the adapters do) and answer 400 to a version you do not know, so the message waits for your upgrade."
              : (common(a!) ?? "Answer 400 to a payload version you do not know."),
          },
  },
];

export const CHECK_NAMES = CHECKS.map((c) => c.name);

interface MessageOptions {
  pretty?: boolean;
  timestampOffset?: number;
  /** Sign the headers with these (default: the receiver's secret). */
  secrets?: string[];
  result?: "success" | "queued" | "rejected";
  reference?: string;
  session?: string;
  sequence?: number;
  version?: string;
}

interface Kit {
  secret: string;
  message(options?: MessageOptions): Promise<Message>;
  send(message: Message): Promise<Sent>;
}

/** A refund's operation webhook as svc sends it, with `signature` filled in by `secret`. */
async function operationPayload(secret: string, o: MessageOptions) {
  const session = o.session ?? `sess_check_${randomBytes(6).toString("hex")}`;
  const reference = o.reference ?? `ref_${randomBytes(6).toString("hex")}`;
  const result = o.result ?? "success";
  const payload = {
    amount: "1.000",
    is_sandbox: true,
    operation: "refund",
    order_no: "svc-check",
    pg_code: "pg_check",
    pg_response: { status: result },
    reference_number: reference,
    result,
    session_id: session,
    source: "input",
    success: result === "success",
    timestamp_utc: new Date().toISOString().slice(0, 19).replace("T", " "),
    txn: {
      session_id: `${session}_r`,
      order_no: "svc-check",
      amount: "1.000",
      currency_code: "KWD",
      state: result === "success" ? "refunded" : result === "queued" ? "refund_queued" : "refund_rejected",
    },
  };
  return { ...payload, signature: await signPayload(payload, secret) };
}

export async function checkReceiver(options: CheckOptions): Promise<CheckResult[]> {
  const kit: Kit = {
    secret: options.secret,
    async message(o = {}) {
      const payload = await operationPayload(options.secret, o);
      const body = o.pretty ? JSON.stringify(payload, null, 2) : canonicalJson(payload);
      const id = `msg_check_${randomUUID().replace(/-/g, "")}`;
      const timestamp = Math.floor(Date.now() / 1000) + (o.timestampOffset ?? 0);
      return {
        id,
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "svc-webhooks-check",
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": await signWebhook({
            id,
            timestamp,
            body,
            secrets: o.secrets ?? [options.secret],
          }),
          "svc-event-type": "operation",
          "svc-sequence": String(o.sequence ?? 1),
          "svc-webhook-version": o.version ?? CURRENT_PAYLOAD_VERSION,
        },
      };
    },
    async send(m) {
      try {
        const response = await fetch(options.url, {
          method: "POST",
          headers: m.headers,
          body: m.body,
          redirect: "manual",
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
        await response.arrayBuffer();
        return { status: response.status };
      } catch (error) {
        return { status: null, error: reason(error) };
      }
    },
  };
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    const answers = await check.run(kit);
    const grade = check.grade(answers);
    results.push({
      name: check.name,
      description: check.description,
      expected: check.expected,
      answers: answers.map(show),
      passed: grade.passed,
      ...(grade.passed ? {} : { fix: grade.fix }),
    });
  }
  return results;
}

/** The report card: one line per check, the fix under each failure, and a total. */
export function reportCard(url: string, results: CheckResult[], out: Output): string {
  const { green, red, bold, dim } = out.colour;
  const lines = [bold(`svc webhooks check ${url}`), ""];
  for (const r of results) {
    lines.push(`${r.passed ? green("PASS") : red("FAIL")}  ${r.name.padEnd(17)} ${r.description}`);
    lines.push(`      ${dim(`expected ${r.expected}; got ${r.answers.join(", ")}`)}`);
    if (r.fix) lines.push(`      fix: ${r.fix}`);
  }
  const passed = results.filter((r) => r.passed).length;
  lines.push(
    "",
    bold(
      `${passed} of ${results.length} checks passed${passed === results.length ? ": this receiver is correct as far as its status codes show." : "."}`,
    ),
  );
  return lines.join("\n");
}
