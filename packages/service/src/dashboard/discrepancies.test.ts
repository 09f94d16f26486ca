/**
 * The Discrepancies page over real HTTP on both stores: each kind said in words, and an operation
 * whose outcome was unknown settled by hand — the outcome asked for (refused without it, beside
 * the choice), `done` counting the refund and sending its webhook, `not_done` removing it — with
 * the outcome shown afterwards and recorded in the audit log.
 *
 * A real unknown outcome needs a KNET refund whose answer is lost; here the refund's reservation
 * is inserted and put on the page as operations.service.ts's recordUnknownOutcome does
 * (discrepanciesRepo.record), on a sandbox payment, whose adapter settles it like any other.
 */
import { newId } from "@svc/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { payOnKnet, saveKnetSetting } from "../../../../test/support/knet.js";
import { createTransaction } from "../../../../test/support/merchant.js";
import { discrepanciesRepo } from "../gateways/discrepancies.repo.js";
import { startKnetStandIn } from "../gateways/knet/standin/index.js";
import { operationsRepo } from "../operations/operations.repo.js";

/** One discrepancy's article of the page. */
function articleOf(html: string, id: string): string {
  const start = html.indexOf(`<article id="${id}"`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start, html.indexOf("</article>", start));
}

describe.each(STORES)("dashboard discrepancies on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let client: DashboardClient;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    // Every operation that counts is sent: a message is the proof that it was.
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: "http://127.0.0.1:9/ops",
      notify_api_initiated: true,
    });
    client = await signedIn(stack, m.admin);
  });
  afterAll(() => stack?.close());

  const payment = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;
  const discrepancy = async (id: string) =>
    (await api(stack, "GET", `/v1/discrepancies/${id}`, { auth: apiKey(m.privateKey) })).json;
  const operationMessages = (sessionId: string) =>
    stack.db.query(
      "select id from webhook_messages where parent_session_id = $1 and event_type = 'operation'",
      [sessionId],
    );

  /** A refund of `amount` sent to the gateway whose answer was lost: reserved and on the page. */
  async function lostRefund(amount: string) {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const referenceNumber = newId("ref");
    const child = await operationsRepo.insert(stack.db, {
      session_id: newId("sess"),
      parent_session_id: parent.session_id,
      merchant_id: m.id,
      operation: "refund",
      amount_minor: Math.round(Number(amount) * 1000),
      currency_code: "KWD",
      state: "refund_pending",
      reference_number: referenceNumber,
      source: "input",
      via: "dashboard",
      initiator: null,
      pg_code: m.pg.sandbox,
      pg_response: {},
      gateway_operation_id: null,
      reason: null,
    });
    const { row } = await discrepanciesRepo.record(stack.db, {
      kind: "unknown_outcome",
      merchant_id: m.id,
      parent_session_id: parent.session_id,
      child_session_id: child!.session_id,
      pg_code: m.pg.sandbox,
      gateway_operation_id: referenceNumber,
      notification_id: null,
      operation: "refund",
      amount,
      currency_code: "KWD",
      rule: "gateway_outcome_unknown",
      detail: `svc sent this refund to ${m.pg.sandbox} and got no answer (the connection was reset).`,
      pg_response: {},
    });
    return { parent, childId: child!.session_id, id: row.id };
  }

  it("shows an unknown outcome in words, with the operation linked and the outcome asked for", async () => {
    const lost = await lostRefund("2.000");
    const page = await client.get("/dashboard/discrepancies");
    expect(page.status).toBe(200);
    const article = articleOf(page.text, lost.id);
    expect(article).toContain("<strong>Outcome unknown — check the gateway's portal</strong>");
    expect(article).toContain(
      `<a href="/dashboard/payments/${lost.parent.session_id}#op-${lost.childId}"><code>${lost.childId}</code></a>`,
    );
    expect(article).toContain("<legend>What does the gateway's portal show?</legend>");
    expect(article).toMatch(
      /<input type="radio" id="f-outcome-dsc_[a-z2-7]+-done" name="outcome" value="done" required/,
    );
    expect(article).toContain("Done at the gateway (count it and send its webhook)");
    expect(article).toContain("Not done (remove it)");
    expect(article).toContain('<button type="submit">Settle</button>');
    // The link leads to the operation on its payment's timeline ("in progress" until settled).
    const paymentPage = await client.get(`/dashboard/payments/${lost.parent.session_id}`);
    expect(paymentPage.text).toMatch(
      new RegExp(`<li class="wait" id="op-${lost.childId}">.*?Refund of 2\\.000 KWD: refund in progress`),
    );
    const arabic = await client.get("/dashboard/discrepancies?lang=ar");
    expect(arabic.text).toContain("النتيجة غير معروفة — راجع بوابة التاجر لدى البوابة");
    expect(arabic.text).toContain("تمّت لدى البوابة (احتسبها وأرسل الويب هوك الخاص بها)");
    // The service's English explanation is marked as English on the Arabic page.
    expect(arabic.text).toContain(`<p lang="en" dir="ltr">svc sent this refund to ${m.pg.sandbox}`);
    await client.get("/dashboard/discrepancies?lang=en");
  });

  it("the payment's page heads an unknown outcome as one, counted as in progress; its timeline says so in words", async () => {
    const lost = await lostRefund("2.000");
    const page = (await client.get(`/dashboard/payments/${lost.parent.session_id}`)).text;
    const notice = page.slice(page.indexOf('<div class="notice error" role="alert">'));
    expect(notice).toContain("<h2>The outcome of an operation is unknown</h2>");
    expect(notice).toContain("It counts as in progress in the totals below until it is settled");
    expect(notice).toContain(
      `<a href="/dashboard/discrepancies#${lost.id}">settle it as done or not done</a>`,
    );
    expect(page).not.toContain("breaks the money rules");
    expect(page).not.toContain("Not applied to the totals below");
    expect(page).toContain("The answer to the refund of 2.000 KWD was lost: its outcome is unknown (open)");
    // In Arabic: the heading and the status in Arabic, the service's English detail marked so.
    const arabic = (await client.get(`/dashboard/payments/${lost.parent.session_id}?lang=ar`)).text;
    await client.get("/dashboard/overview?lang=en");
    expect(arabic).toContain("<h2>نتيجة عملية غير معروفة</h2>");
    expect(arabic).toContain(`<span lang="en" dir="ltr">svc sent this refund to ${m.pg.sandbox}`);
    expect(arabic).toContain(`<p class="hint" lang="en" dir="ltr">svc sent this refund to ${m.pg.sandbox}`);
    expect(arabic).toMatch(/ضاع الرد على [^<]*: نتيجته غير معروفة \(مفتوح\)/);
    expect(arabic).not.toContain("(open)");
    // Settled, the timeline says how.
    await client.get("/dashboard/discrepancies");
    await client.post(`/dashboard/discrepancies/${lost.id}/resolve`, {
      outcome: "not_done",
      note: "Not there",
    });
    const settled = (await client.get(`/dashboard/payments/${lost.parent.session_id}`)).text;
    expect(settled).toContain("its outcome is unknown (settled as not done)");
    expect(settled).not.toContain('<div class="notice error" role="alert">');
  });

  it("a KNET refund whose answer was lost: the form says to settle it on Discrepancies, not to submit it again", async () => {
    const terminal = { tranportalId: "880402", password: "880402pg", resourceKey: "K7c9Qw2Lm4Xz8Rt2" };
    const knet = await startKnetStandIn({ terminals: [terminal] });
    try {
      const pgCode = `knet-${m.id.slice(4, 12)}`;
      const created = await saveKnetSetting(stack, m.id, pgCode, terminal, knet.url);
      expect(created.status, created.text).toBe(201);
      const tx = (await createTransaction(stack, m, { pg_codes: [pgCode], amount: "8.000" })).json;
      const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
        auth: apiKey(m.publicKey),
        body: { form_of_payment: "redirect", pg_code: pgCode },
      });
      await payOnKnet(started.json.redirect_url as string, { expiry: "09/2021" });
      expect((await payment(tx.session_id)).state).toBe("paid");
      const page = await client.get(`/dashboard/payments/${tx.session_id}`);
      const key = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(page.text)![1]!;
      knet.faults.loseRefundAnswers = 1;
      const form = { amount: "3.000", idempotency_key: key, confirm: "yes" };
      const lost = await client.post(`/dashboard/payments/${tx.session_id}/refund`, form);
      expect(lost.status).toBe(504);
      expect(lost.text).toContain("This gateway cannot be asked about it, so svc will not send it again");
      expect(lost.text).toContain("settle it on the Discrepancies page (done or not done)");
      expect(lost.text).not.toContain("Submit the form again to get its outcome");
      expect(lost.text).toContain("<h2>The outcome of an operation is unknown</h2>");
      // Submitted again anyway: the same answer, and KNET is not asked twice.
      const again = await client.post(`/dashboard/payments/${tx.session_id}/refund`, form);
      expect(again.status).toBe(504);
      expect(again.text).toContain("settle it on the Discrepancies page");
      expect(knet.requests.filter((r) => r.action === "2")).toHaveLength(1);
    } finally {
      await knet.close();
    }
  });

  it("refuses to settle without an outcome, beside the choice, keeping the note; nothing moves", async () => {
    const lost = await lostRefund("1.000");
    await client.get("/dashboard/discrepancies");
    const refused = await client.post(`/dashboard/discrepancies/${lost.id}/resolve`, {
      note: "Checked the portal",
    });
    expect(refused.status).toBe(422);
    const article = articleOf(refused.text, lost.id);
    expect(article).toContain('data-error-summary="true"><h2>There is a problem</h2>');
    expect(article).toContain(
      `<p class="field-error" id="f-outcome-${lost.id}-error">Choose what the gateway's portal shows: done or not done.</p>`,
    );
    expect(article).toContain(
      `aria-describedby="f-outcome-${lost.id}-hint f-outcome-${lost.id}-error" aria-invalid="true"`,
    );
    expect(article).toContain('value="Checked the portal"');
    const noNote = await client.post(`/dashboard/discrepancies/${lost.id}/resolve`, {
      outcome: "done",
      note: " ",
    });
    expect(noNote.status).toBe(422);
    expect(noNote.text).toContain(`id="f-note-${lost.id}-error">Write what was done about the discrepancy`);
    expect(noNote.text).toMatch(
      new RegExp(`id="f-outcome-${lost.id}-done" name="outcome" value="done" checked`),
    );
    expect(await discrepancy(lost.id)).toMatchObject({ status: "open", resolution: null });
    expect((await payment(lost.parent.session_id)).refunded_amount).toBe("0.000");
    const missing = await client.post("/dashboard/discrepancies/dsc_nosuchone/resolve", { note: "x" });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("There is no such discrepancy.");
  });

  it("settles as done: the refund counts, its webhook is sent, the outcome is shown and audited", async () => {
    const lost = await lostRefund("2.500");
    expect(await operationMessages(lost.parent.session_id)).toHaveLength(0);
    await client.get("/dashboard/discrepancies");
    const settled = await client.post(`/dashboard/discrepancies/${lost.id}/resolve`, {
      outcome: "done",
      note: "Found in the portal: refunded",
    });
    expect(settled.status).toBe(303);
    const page = await client.get(settled.location!);
    expect(page.text).toContain(
      `Discrepancy ${lost.id} is resolved: the refund of 2.500 KWD counts as done and its webhook is on its way.`,
    );
    const article = articleOf(page.text, lost.id);
    expect(article).toContain("Settled as done at the gateway: it counts, and its webhook was sent.");
    expect(article).toContain("Found in the portal: refunded");
    expect(article).not.toContain('name="outcome"');
    expect(await discrepancy(lost.id)).toMatchObject({
      status: "resolved",
      resolution: { outcome: "done", note: "Found in the portal: refunded", resolved_by: m.admin.username },
    });
    const p = await payment(lost.parent.session_id);
    expect(p.refunded_amount).toBe("2.500");
    expect(p.transactions).toEqual([
      expect.objectContaining({ session_id: lost.childId, state: "refunded" }),
    ]);
    expect(await operationMessages(lost.parent.session_id)).toHaveLength(1);
    await expect
      .poll(async () => (await client.get("/dashboard/audit")).text, { timeout: 5_000 })
      .toContain(`Resolved a discrepancy <code dir="ltr">${lost.id}</code>`);
    const [event] = await stack.db.query<{ detail: Record<string, unknown> }>(
      "select detail from audit_events where merchant_id = $1 and action = 'discrepancy.resolved' and target = $2",
      [m.id, lost.id],
    );
    expect(event!.detail).toEqual({ outcome: "done", note: "Found in the portal: refunded" });
  });

  it("settles as not done: the refund is removed, nothing is sent, the operation is no longer linked", async () => {
    const lost = await lostRefund("3.000");
    expect((await payment(lost.parent.session_id)).refundable_amount).toBe("7.000");
    await client.get("/dashboard/discrepancies");
    const settled = await client.post(`/dashboard/discrepancies/${lost.id}/resolve`, {
      outcome: "not_done",
      note: "Not in the portal",
    });
    expect(settled.status).toBe(303);
    const page = await client.get(settled.location!);
    expect(page.text).toContain(
      `the refund of 3.000 KWD was removed. It does not count, and it can be made again.`,
    );
    const article = articleOf(page.text, lost.id);
    expect(article).toContain("Settled as not done: it was removed.");
    expect(article).toContain(`<code>${lost.childId}</code> (removed)`);
    expect(article).not.toContain(`#op-${lost.childId}`);
    expect(await discrepancy(lost.id)).toMatchObject({
      status: "resolved",
      resolution: { outcome: "not_done" },
    });
    const p = await payment(lost.parent.session_id);
    expect(p.transactions).toEqual([]);
    expect(p.refundable_amount).toBe("10.000");
    expect(await operationMessages(lost.parent.session_id)).toHaveLength(0);
  });

  it("a discrepancy the gateway reported asks no outcome; settling one twice is refused in place", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "5.000" });
    const { row } = await discrepanciesRepo.record(stack.db, {
      merchant_id: m.id,
      parent_session_id: parent.session_id,
      pg_code: m.pg.sandbox,
      gateway_operation_id: `op_${newId("ref")}`,
      notification_id: null,
      operation: "refund",
      amount: "50.000",
      currency_code: "KWD",
      rule: "amount_exceeds_refundable",
      detail: "The gateway reported a refund of 50.000 KWD; at most 5.000 KWD was refundable.",
      pg_response: {},
    });
    const page = await client.get("/dashboard/discrepancies");
    const article = articleOf(page.text, row.id);
    expect(article).toContain("<strong>Reported by the gateway</strong>");
    expect(article).not.toContain('name="outcome"');
    expect(article).toContain('<button type="submit">Mark resolved</button>');
    const done = await client.post(`/dashboard/discrepancies/${row.id}/resolve`, { note: "Reversed there" });
    expect(done.status).toBe(303);
    expect((await client.get(done.location!)).text).toContain(`Discrepancy ${row.id} is resolved.`);
    const again = await client.post(`/dashboard/discrepancies/${row.id}/resolve`, { note: "Again" });
    expect(again.status).toBe(409);
    expect(again.text).toContain(`is already resolved`);
    expect(again.text).toContain('data-error-summary="true"');
  });
});
