#!/usr/bin/env node
// The example app's backend: creates a checkout session with the private key, which never goes
// into the app. Run it beside `npm start` (svc dev) from the repository root:
//   node examples/react-native/backend.mjs
// It reads svc dev's credentials (.svc/dev-credentials.json) and listens on 127.0.0.1:3001.
import { readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";

const credentials = JSON.parse(
  await readFile(path.resolve(process.env.SVC_DATA_DIR || ".svc", "dev-credentials.json"), "utf8"),
);

/** Where the card page and bank pages send the browser when the customer is done. */
const RETURN_URL = "http://localhost:3001/return";
const APP_URL = "svcexample://checkout-return";

const server = http.createServer(async (req, res) => {
  // svc returns to an http(s) URL; this page hands the customer back to the app by its scheme
  // (a production app would use a universal link / app link on its own domain instead).
  if (req.method === "GET" && req.url?.startsWith("/return")) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    return void res.end(
      `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<meta http-equiv="refresh" content="0;url=${APP_URL}"><title>Back to the app</title>` +
        `<p>Payment finished. <a href="${APP_URL}">Return to the app</a>.</p>`,
    );
  }
  if (req.method !== "POST" || req.url !== "/session") return void res.writeHead(404).end();
  // A real backend prices the cart itself; the app only says what is in it.
  const answer = await fetch(`${credentials.service_url}/v1/checkout`, {
    method: "POST",
    headers: { authorization: `Api-Key ${credentials.private_key}`, "content-type": "application/json" },
    body: JSON.stringify({
      type: "e_commerce",
      // Every purchase gateway of svc dev (card, wallets, bank page); not the authorize-only one.
      pg_codes: Object.entries(credentials.pg_codes)
        .filter(([name]) => name !== "sandbox_authorize")
        .map(([, code]) => code),
      amount: "10.500",
      currency_code: "KWD",
      order_no: `app-${Date.now()}`,
      // The card page and bank pages send the browser here, and this backend on to the app.
      redirect_url: RETURN_URL,
      include_sdk_setup_preload: true,
    }),
  });
  const body = await answer.json();
  res.writeHead(answer.status, { "content-type": "application/json" });
  res.end(
    JSON.stringify(
      answer.ok
        ? {
            session_id: body.session_id,
            setup_preload: body.sdk_setup_preload_payload,
            public_key: credentials.public_key,
            merchant_id: new URL(credentials.service_url).host,
          }
        : body,
    ),
  );
});
server.listen(3001, "127.0.0.1", () => console.log("example backend on http://127.0.0.1:3001"));
