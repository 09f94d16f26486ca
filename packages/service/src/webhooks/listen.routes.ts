/**
 * `POST /v1/webhooks/listen`, `GET /v1/webhooks/endpoints/{id}/stream` (server-sent events),
 * `POST /v1/webhooks/endpoints/{id}/deliveries/{delivery_id}/result`: the service side of
 * `svc listen` (webhooks/listen.ts).
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import type { ListenService } from "./listen.js";
import type { OutboxSignal } from "./outbox.js";
import { typed } from "../http/schema.js";

const tags = ["Webhooks"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "webhooks.manage" as const };
/** How often a stream looks for due deliveries besides being woken by a commit (retries coming due). */
const STREAM_POLL_MS = 500;
/** A comment line at least this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
const STREAM_BATCH = 20;
/** How often an open stream records that it is open (so its endpoint is not taken for abandoned). */
const SEEN_EVERY_MS = 5 * 60_000;

/**
 * How often a stream sends its comment line: every KEEP_ALIVE_MS, or twice within the server's
 * idle-socket timeout (SVC_IDLE_TIMEOUT_MS, `server.timeout`) when that is shorter, so a quiet
 * stream is never taken for a silent socket and cut.
 */
function heartbeatMs(idleTimeoutMs: number): number {
  return idleTimeoutMs > 0 ? Math.min(KEEP_ALIVE_MS, Math.floor(idleTimeoutMs / 2)) : KEEP_ALIVE_MS;
}

const ListenBody = Type.Object(
  {
    event_types: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 32,
        description: 'Default ["*"]: every event type',
      }),
    ),
  },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ResultParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  delivery_id: Type.String({ minLength: 1, maxLength: 64 }),
});
const ResultBody = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: "The event's attempt number" }),
    status_code: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], {
      description: "The local server's status; null when it did not answer",
    }),
    latency_ms: Type.Number({ minimum: 0, maximum: 600_000 }),
    error: Type.Optional(Type.String({ maxLength: 500 })),
    response_body: Type.Optional(Type.String({ maxLength: 4096 })),
    retry_after: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export function listenRoutes(fastify: FastifyInstance, listen: ListenService, outbox: OutboxSignal): void {
  const app = typed(fastify);
  app.post(
    "/v1/webhooks/listen",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Start svc listen: a temporary endpoint of kind cli whose webhooks are read from its stream (no inbound port), and the secret they are signed with",
        body: Type.Optional(ListenBody),
      },
    },
    async (request, reply) => {
      const body = request.body;
      return reply.status(201).send(await listen.start(merchantOf(request), body?.event_types));
    },
  );

  app.get(
    "/v1/webhooks/endpoints/:id/stream",
    {
      // No HEAD: a HEAD would open a stream whose events are never sent, and lease deliveries
      // the real stream then waits for (once held for 60 s).
      exposeHeadRoute: false,
      config,
      schema: {
        tags,
        security,
        summary:
          "Server-sent events of a cli endpoint: each `delivery` event is one attempt ({delivery_id, attempt, event_type, headers, body}); report the local answer to …/deliveries/{delivery_id}/result",
        params: IdParams,
      },
    },
    async (request, reply) => {
      const merchantId = merchantOf(request);
      const { id } = request.params;
      await listen.check(merchantId, id);
      const seen = () =>
        listen
          .seen(id)
          .catch((err: unknown) => request.log.warn({ err }, "listen stream could not record it is open"));
      await seen();
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      res.write(`event: ready\ndata: ${JSON.stringify({ endpoint_id: id })}\n\n`);
      const outstanding = new Set<string>();
      let closed = false;
      let busy = false;
      let again = false;
      const pump = async () => {
        if (closed) return;
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        try {
          do {
            again = false;
            const batch = await listen.take(id, STREAM_BATCH);
            for (const d of batch) {
              outstanding.add(d.delivery_id);
              res.write(`event: delivery\nid: ${d.delivery_id}.${d.attempt}\ndata: ${JSON.stringify(d)}\n\n`);
            }
            if (batch.length === STREAM_BATCH) again = true;
          } while (again && !closed);
        } catch (err) {
          request.log.warn({ err }, "listen stream could not take deliveries");
        } finally {
          busy = false;
        }
      };
      const wake = () => void pump();
      outbox.on("committed", wake);
      const poll = setInterval(wake, STREAM_POLL_MS);
      const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), heartbeatMs(fastify.server.timeout));
      const seenTimer = setInterval(() => void seen(), SEEN_EVERY_MS);
      // The response's close: the client went away (the request's own 'close' comes once it is read).
      res.on("close", () => {
        closed = true;
        outbox.off("committed", wake);
        clearInterval(poll);
        clearInterval(keepAlive);
        clearInterval(seenTimer);
        void seen();
        // What the CLI took but did not answer goes back to the queue at once.
        void listen
          .release(id, [...outstanding])
          .catch((err: unknown) => request.log.warn({ err }, "listen stream could not release its leases"));
      });
      listenStreams.set(id, outstanding);
      res.on("close", () => {
        if (listenStreams.get(id) === outstanding) listenStreams.delete(id);
      });
      await pump();
    },
  );

  app.post(
    "/v1/webhooks/endpoints/:id/deliveries/:delivery_id/result",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "What the local server answered to a streamed delivery: recorded as an attempt; the delivery succeeds, is retried on the schedule, or is given up",
        params: ResultParams,
        body: ResultBody,
      },
    },
    async (request) => {
      const { id, delivery_id } = request.params;
      const result = await listen.report(merchantOf(request), id, delivery_id, request.body);
      listenStreams.get(id)?.delete(delivery_id);
      return result;
    },
  );
}

/** The deliveries each open stream (in this process) handed out and has not had answered yet. */
const listenStreams = new Map<string, Set<string>>();
