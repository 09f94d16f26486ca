/**
 * `npm start` as a newcomer runs it: `svc dev` in its own process, on PGlite under a fresh data
 * dir. The printed curl creates a transaction, wallet_b_pay with OTP 123456 pays it, and a
 * restart on the same data keeps the merchant, its keys and the payment.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { startDev, stop } from "../support/dev-process.js";
import { payOnKnet } from "../support/knet.js";

describe("svc dev (npm start)", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-dev-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("serves, the printed curl creates a transaction, OTP 123456 pays it, and a restart keeps everything", async () => {
    const env = {
      SVC_PORT: String(await freePort()),
      SVC_GATEWAY_PORT: String(await freePort()),
      SVC_KNET_PORT: String(await freePort()),
      SVC_STRIPE_PORT: String(await freePort()),
      SVC_DATA_DIR: dataDir,
    };
    const first = await startDev(env);
    const creds = JSON.parse(readFileSync(path.join(dataDir, "dev-credentials.json"), "utf8"));
    expect(Object.keys(creds).sort()).toEqual(
      [
        "admin_token",
        "dashboard",
        "gateway_notification_secret",
        "knet_terminal",
        "merchant_id",
        "pg_codes",
        "private_key",
        "public_key",
        "service_url",
        "stripe_account",
        "webhook_secret",
      ].sort(),
    );
    expect(creds.merchant_id).toBe(`localhost:${env.SVC_PORT}`);
    expect(creds.service_url).toBe(`http://localhost:${env.SVC_PORT}`);
    expect(Object.keys(creds.pg_codes).sort()).toEqual([
      "knet",
      "ndebit",
      "sandbox",
      "sandbox_authorize",
      "sandbox_queued",
      "stripe",
    ]);
    expect(creds.webhook_secret).toMatch(/^whsec_/);
    expect(first.output()).toContain(creds.private_key);
    for (const link of ["/docs", "/example/", "/dashboard"])
      expect(first.output()).toContain(`${creds.service_url}${link}`);

    // Run the printed curl exactly as printed.
    const curl = first.output().split("Create a transaction:\n")[1]!.split("\n\nThen open")[0]!;
    const created = JSON.parse(execFileSync("bash", ["-c", curl], { encoding: "utf8" }));
    expect(created).toMatchObject({ state: "created", amount: "10.500", currency_code: "KWD" });

    const headers = { authorization: `Api-Key ${creds.public_key}`, "content-type": "application/json" };
    const started = await (
      await fetch(`${creds.service_url}/v1/checkout/${created.session_id}/payments`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          form_of_payment: "wallet_b_pay",
          pg_code: creds.pg_codes.sandbox,
          mobile_number: "96550001234",
        }),
      })
    ).json();
    expect(started.status).toBe("otp_required");
    const paid = await (
      await fetch(`${creds.service_url}/v1/checkout/${created.session_id}/payments/otp`, {
        method: "POST",
        headers,
        body: JSON.stringify({ otp_reference: started.otp_reference, otp: "123456" }),
      })
    ).json();
    expect(paid.status).toBe("success");

    // The KNET path, end to end on this machine: the stand-in's page, its response, svc's inquiry.
    expect(first.output()).toContain(`KNET stand-in    http://127.0.0.1:${env.SVC_KNET_PORT}`);
    expect(statSync(path.join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);
    const knetTx = await (
      await fetch(`${creds.service_url}/v1/checkout`, {
        method: "POST",
        headers: { authorization: `Api-Key ${creds.private_key}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: "e_commerce",
          pg_codes: [creds.pg_codes.knet],
          amount: "4.250",
          currency_code: "KWD",
        }),
      })
    ).json();
    const toKnet = await (
      await fetch(`${creds.service_url}/v1/checkout/${knetTx.session_id}/payments`, {
        method: "POST",
        headers,
        body: JSON.stringify({ form_of_payment: "redirect", pg_code: creds.pg_codes.knet }),
      })
    ).json();
    expect(toKnet.redirect_url, JSON.stringify(toKnet)).toBeTruthy();
    const browser = await payOnKnet(toKnet.redirect_url, { expiry: "09/2021" });
    expect(browser.location).toBe(`${creds.service_url}/pay/${knetTx.session_id}/return`);
    const knetStatus = await (
      await fetch(`${creds.service_url}/v1/payments/${knetTx.session_id}`, {
        headers: { authorization: `Api-Key ${creds.private_key}` },
      })
    ).json();
    expect(knetStatus).toMatchObject({ state: "paid", pg_code: creds.pg_codes.knet });

    // The Stripe path, end to end on this machine: svc's card page, the stand-in's PaymentIntent.
    expect(first.output()).toContain(`Stripe stand-in  http://127.0.0.1:${env.SVC_STRIPE_PORT}`);
    const stripeTx = await (
      await fetch(`${creds.service_url}/v1/checkout`, {
        method: "POST",
        headers: { authorization: `Api-Key ${creds.private_key}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: "e_commerce",
          pg_codes: [creds.pg_codes.stripe],
          amount: "12.00",
          currency_code: "USD",
        }),
      })
    ).json();
    const card = await fetch(`${creds.service_url}/pay/${stripeTx.session_id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        pg_code: creds.pg_codes.stripe,
        number: "4242424242424242",
        expiry: `12/${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`,
        cvc: "123",
      }).toString(),
      redirect: "manual",
    });
    expect(card.status).toBe(303);
    const stripeStatus = await (
      await fetch(`${creds.service_url}/v1/payments/${stripeTx.session_id}`, {
        headers: { authorization: `Api-Key ${creds.private_key}` },
      })
    ).json();
    expect(stripeStatus).toMatchObject({
      state: "paid",
      pg_code: creds.pg_codes.stripe,
      captured_amount: "12.00",
    });
    await stop(first.child);

    const second = await startDev(env);
    try {
      const again = JSON.parse(readFileSync(path.join(dataDir, "dev-credentials.json"), "utf8"));
      expect(again).toEqual(creds);
      const status = await fetch(`${creds.service_url}/v1/payments/${created.session_id}`, {
        headers: { authorization: `Api-Key ${creds.private_key}` },
      });
      expect(status.status).toBe(200);
      expect(((await status.json()) as { state: string }).state).toBe("paid");
      // The KNET stand-in starts again (it forgets its payments) and the setting points at it.
      expect(second.output()).toContain(`KNET stand-in    http://127.0.0.1:${env.SVC_KNET_PORT}`);
      expect(second.output()).toContain(`Stripe stand-in  http://127.0.0.1:${env.SVC_STRIPE_PORT}`);
    } finally {
      await stop(second.child);
    }
  }, 180_000);
});
