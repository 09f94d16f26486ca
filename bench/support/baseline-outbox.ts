/**
 * The simplest peer svc's delivery worker is measured against (issue 12): a plain hand-written
 * outbox as a careful engineer would write it in an afternoon. One table; 4 workers, each
 * claiming 50 due rows with `FOR UPDATE SKIP LOCKED` in a transaction, posting them at once over
 * one keep-alive undici pool, marking them sent with one `UPDATE` per batch and committing; a
 * worker that finds nothing sleeps `IDLE_SLEEP_MS` before it looks again. No retries, signing,
 * ordering, leases or metrics: everything svc does beyond this is overhead the comparison counts
 * against svc.
 */
import pg from "pg";
import { Agent, request } from "undici";
import { PRODUCER_POOL, type ProduceReport } from "./produce.js";
import { wallMs } from "./receiver.js";

const WORKERS = 4;
const BATCH = 50;
/** How long an idle worker waits before it claims again: its latency floor when the table is empty. */
const IDLE_SLEEP_MS = 5;
const CONNECTIONS = 64;

const SCHEMA = `create table if not exists baseline_outbox (
    id bigserial primary key,
    message_id text not null,
    url text not null,
    body text not null,
    sent_at timestamptz
  );
  create index if not exists baseline_outbox_due on baseline_outbox (id) where sent_at is null`;

const CLAIM = `select id, message_id, url, body from baseline_outbox
  where sent_at is null order by id limit ${BATCH} for update skip locked`;

export class BaselineOutbox {
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: WORKERS + PRODUCER_POOL });
  }

  async reset(): Promise<void> {
    await this.pool.query(SCHEMA);
    await this.pool.query("truncate baseline_outbox");
  }

  /** Commits `count` rows in one transaction while no worker runs. */
  async prefill(count: number, url: string, body: string, prefix: string): Promise<void> {
    await this.pool.query(
      `insert into baseline_outbox (message_id, url, body)
       select $1 || g, $2, $3 from generate_series(1, $4) g`,
      [prefix, url, body, count],
    );
  }

  /** One row in its own transaction (autocommit): the producer side of the latency run. */
  async enqueue(messageId: string, url: string, body: string): Promise<void> {
    await this.pool.query("insert into baseline_outbox (message_id, url, body) values ($1, $2, $3)", [
      messageId,
      url,
      body,
    ]);
  }

  /** Opens every connection of the pool before a latency run, as svc's producers warm theirs. */
  async warmUp(): Promise<void> {
    const clients = await Promise.all(Array.from({ length: PRODUCER_POOL }, () => this.pool.connect()));
    for (const client of clients) client.release();
  }

  /** Starts the workers; the returned function stops them once their current batch is done. */
  start(): () => Promise<void> {
    const agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 30_000 });
    let running = true;
    const loops = Array.from({ length: WORKERS }, async () => {
      while (running) {
        const sent = await this.batch(agent);
        if (sent === 0) await new Promise((r) => setTimeout(r, IDLE_SLEEP_MS));
      }
    });
    return async () => {
      running = false;
      await Promise.all(loops);
      await agent.close();
    };
  }

  private async batch(agent: Agent): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query("begin");
      const { rows } = await client.query<{ id: string; message_id: string; url: string; body: string }>(
        CLAIM,
      );
      await Promise.all(
        rows.map(async (row) => {
          const r = await request(row.url, {
            method: "POST",
            dispatcher: agent,
            body: row.body,
            headers: { "content-type": "application/json", "webhook-id": row.message_id },
          });
          await r.body.dump();
        }),
      );
      if (rows.length > 0)
        await client.query("update baseline_outbox set sent_at = now() where id = any($1::int8[])", [
          rows.map((r) => r.id),
        ]);
      await client.query("commit");
      return rows.length;
    } catch (error) {
      await client.query("rollback").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * Offers `perSecond` rows a second for `seconds`, each committed on its own, and returns each
 * row's send time (when the producer was due to send it) and commit time, wall clock ms.
 */
export async function produceBaseline(
  outbox: BaselineOutbox,
  job: { url: string; body: string; perSecond: number; seconds: number; prefix: string },
): Promise<ProduceReport> {
  const commits: ProduceReport["commits"] = [];
  const total = job.perSecond * job.seconds;
  const start = performance.now();
  const inserts: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * job.perSecond));
    for (; sent < due; sent++) {
      const id = `${job.prefix}${sent}`;
      const at = wallMs();
      inserts.push(outbox.enqueue(id, job.url, job.body).then(() => void commits.push([id, at, wallMs()])));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inserts);
  return { commits, offeredSeconds: (performance.now() - start) / 1000 };
}
