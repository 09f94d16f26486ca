/**
 * `svc listen --forward-to <url>`: a developer's receiver gets the merchant's webhooks without an
 * inbound port. The CLI registers a temporary endpoint of kind `cli` (`POST /v1/webhooks/listen`),
 * reads its deliveries from the service's event stream, forwards each with the exact signed body
 * and headers to the local URL, prints one line per delivery and reports the local answer back,
 * where it is recorded as an attempt: the delivery log shows it, a failure is retried on the
 * endpoint's schedule and one parent's messages come one at a time, in order. A dropped stream is
 * reopened (messages wait in the outbox meanwhile, as for any endpoint); Ctrl-C deletes the
 * endpoint.
 */
import { type Api, ApiError, reason } from "../lib/api.js";
import type { Output } from "../lib/output.js";

export interface ListenOptions {
  forwardTo: string;
  events?: string[] | undefined;
  /** Local answer timeout; a slower receiver counts as no answer (the service retries). */
  timeoutMs?: number | undefined;
}

export interface ListenHandle {
  endpointId: string;
  signingSecret: string | null;
  /** Resolves when the listener stops (after {@link ListenHandle.stop} or a fatal refusal). */
  done: Promise<void>;
  stop(): Promise<void>;
}

interface Streamed {
  delivery_id: string;
  attempt: number;
  event_type: string;
  headers: Record<string, string>;
  body: string;
}

/** Waits before reopening a dropped stream: 0.5 s after a long-open stream, then stepping up to 10 s. */
const RECONNECT_MS = [500, 1_000, 2_000, 5_000, 10_000];
/** The local server's answer is cut at this many characters before it is reported. */
const RESPONSE_BODY_LIMIT = 2_048;

export async function listen(api: Api, options: ListenOptions, out: Output): Promise<ListenHandle> {
  const target = new URL(options.forwardTo);
  if (target.protocol !== "http:" && target.protocol !== "https:")
    throw new Error(`--forward-to must be an http:// or https:// URL (got "${options.forwardTo}")`);
  const started = await api.request<{
    endpoint: { id: string; event_types: string[] };
    signing_secret: string | null;
    stream_path: string;
  }>("POST", "/v1/webhooks/listen", {
    body: options.events?.length ? { event_types: options.events } : {},
  });
  const endpointId = started.endpoint.id;
  out.info(
    `Ready. Forwarding ${started.endpoint.event_types.join(", ").replace("*", "every event type")} to ${options.forwardTo}`,
  );
  out.info(
    `Your webhook signing secret is ${started.signing_secret ?? "(none yet: rotate one in the dashboard)"}`,
  );
  out.event({
    type: "ready",
    endpoint_id: endpointId,
    signing_secret: started.signing_secret,
    forward_to: options.forwardTo,
  });

  const abort = new AbortController();
  let stopping = false;

  const forward = async (d: Streamed) => {
    const begun = performance.now();
    let statusCode: number | null = null;
    let error: string | undefined;
    let responseBody: string | undefined;
    let retryAfter: string | undefined;
    try {
      const response = await fetch(options.forwardTo, {
        method: "POST",
        headers: d.headers,
        body: d.body,
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
      statusCode = response.status;
      responseBody = (await response.text()).slice(0, RESPONSE_BODY_LIMIT);
      retryAfter = response.headers.get("retry-after") ?? undefined;
    } catch (e) {
      error = `could not reach ${options.forwardTo}: ${reason(e)}`.slice(0, 500);
    }
    const latency = performance.now() - begun;
    let result = "";
    try {
      const reported = await api.request<{ status: string; next_attempt_at: string | null }>(
        "POST",
        `/v1/webhooks/endpoints/${endpointId}/deliveries/${d.delivery_id}/result`,
        {
          body: {
            attempt: d.attempt,
            status_code: statusCode,
            latency_ms: Math.round(latency),
            ...(error ? { error } : {}),
            ...(responseBody ? { response_body: responseBody } : {}),
            ...(retryAfter ? { retry_after: retryAfter } : {}),
          },
        },
      );
      result = reported.status === "retrying" ? `retry at ${reported.next_attempt_at}` : reported.status;
    } catch (e) {
      // The lease runs out and the service sends it again: nothing is lost.
      result = `not reported (${reason(e)}); it will come again`;
    }
    out.delivery({
      event_type: d.event_type,
      webhook_id: d.headers["webhook-id"] ?? "",
      sequence: d.headers["svc-sequence"] ?? "",
      attempt: d.attempt,
      status_code: statusCode,
      latency_ms: Math.round(latency),
      error,
      result,
    });
  };

  const readStream = async () => {
    const response = await api.open(started.stream_path, abort.signal);
    if (!response.body) throw new Error("the service sent no stream");
    const decoder = new TextDecoder();
    let buffer = "";
    // One parent's deliveries come one at a time (the service holds the next back until this one
    // is reported), so forwarding them concurrently keeps order and does not wait on slow parents.
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event?.event === "delivery") void forward(JSON.parse(event.data) as Streamed);
      }
    }
  };

  const done = (async () => {
    let failures = 0;
    while (!stopping) {
      const opened = Date.now();
      try {
        await readStream();
      } catch (e) {
        if (stopping) break;
        if (e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404)) {
          out.error(`the service refused the stream: ${e.message}`);
          throw e;
        }
        if (!(e instanceof ApiError)) out.info(`stream dropped: ${reason(e)}`);
        else out.info(`stream refused (${e.message})`);
      }
      if (stopping) break;
      failures = Date.now() - opened > 30_000 ? 0 : failures + 1;
      const wait = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)]!;
      out.info(`reconnecting in ${wait} ms; messages wait in the outbox meanwhile`);
      await new Promise((r) => setTimeout(r, wait));
    }
  })();

  return {
    endpointId,
    signingSecret: started.signing_secret,
    done,
    async stop() {
      stopping = true;
      abort.abort();
      await done.catch(() => {});
      await api.request("DELETE", `/v1/webhooks/endpoints/${endpointId}`).catch(() => {});
    },
  };
}

/** One server-sent event block: its `event` and `data` fields (comments and ids ignored). */
export function parseEvent(block: string): { event: string; data: string } | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { event, data: data.join("\n") } : undefined;
}
