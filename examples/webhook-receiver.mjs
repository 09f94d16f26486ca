// A webhook receiver for svc in a dozen lines, built on @svc/webhooks: verifies every request
// (signature, timestamp, payload version), answers a repeat 200 without handling it twice, and
// prints one line per webhook. README: "Your first webhook in 5 minutes".
//
//   WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs     (PORT, default 3000)
import http from "node:http";
import { createDeduper } from "@svc/webhooks/dedupe";
import { webhookMiddleware } from "@svc/webhooks/node";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("Set WEBHOOK_SECRET to the signing secret `svc listen` printed.");
const port = Number(process.env.PORT ?? 3000);

const receive = webhookMiddleware({
  secrets: secret,
  dedupe: createDeduper(),
  onEvent: (event, req) => {
    const { session_id, result, state } = event.payload;
    console.log(
      `${req.headers["svc-event-type"]} #${req.headers["svc-sequence"]} ${event.id} ${session_id} ${result ?? state ?? ""}`,
    );
  },
  onError: (error) => console.error(`refused: ${error.message}`),
});

http
  .createServer((req, res) => (req.url === "/webhooks" ? receive(req, res) : res.writeHead(404).end()))
  .listen(port, "127.0.0.1", () => console.log(`receiving webhooks on http://127.0.0.1:${port}/webhooks`));
