/**
 * The operations bench's client, in its own process: keeps IN_FLIGHT refunds in flight against
 * the service for a warm-up and a measured window, then reports {ok, failed, seconds}.
 * Input (IPC): {url, key, sessions, inFlight, warmupSeconds, seconds}.
 */
import { Agent, request } from "undici";

interface Job {
  url: string;
  key: string;
  sessions: string[];
  inFlight: number;
  warmupSeconds: number;
  seconds: number;
}

process.once("message", async (job: Job) => {
  const agent = new Agent({ connections: job.inFlight, keepAliveTimeout: 30_000 });
  const headers = { "content-type": "application/json", authorization: `Api-Key ${job.key}` };
  let ok = 0;
  let failed = 0;
  let firstFailure = "";
  const run = (untilMs: number, count: boolean) =>
    Promise.all(
      Array.from({ length: job.inFlight }, async (_, lane) => {
        let i = lane;
        while (performance.now() < untilMs) {
          const sessionId = job.sessions[i++ % job.sessions.length];
          const r = await request(`${job.url}/v1/operations`, {
            method: "POST",
            dispatcher: agent,
            headers,
            body: JSON.stringify({ operation: "refund", session_id: sessionId, amount: "0.001" }),
          });
          const text = await r.body.text();
          if (!count) continue;
          if (r.statusCode === 200) ok += 1;
          else {
            failed += 1;
            firstFailure ||= `${r.statusCode} ${text.slice(0, 200)}`;
          }
        }
      }),
    );
  await run(performance.now() + job.warmupSeconds * 1000, false);
  const started = performance.now();
  await run(started + job.seconds * 1000, true);
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  process.send?.({ ok, failed, seconds, firstFailure });
  process.exit(0);
});
