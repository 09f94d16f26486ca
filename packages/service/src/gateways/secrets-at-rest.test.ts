/**
 * Gateway credentials never reach a store's files in plain text: after settings are created and
 * changed through the operator API, every file of a file-backed PGlite data directory and of the
 * test PostgreSQL cluster (heap, WAL, server log), flushed by a checkpoint, is searched for each
 * secret, as UTF-8 and as its hex and base64 spellings.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { api, bearer, createMerchant } from "../../../../test/support/merchant.js";
import { startStack } from "../../../../test/support/stack.js";
import { STORES, testDb } from "../../../../test/support/stores.js";
import { openPglite } from "../db/client.js";
import { migrate } from "../db/migrate.js";

/** Fresh secrets each run, so a match can only come from this run's writes. */
function secrets() {
  const token = (n: number) => randomBytes(n).toString("hex");
  return {
    knet: { tranportal_id: `tp${token(4)}`, tranportal_password: `pw${token(5)}`, resource_key: token(8) },
    stripe: { secret_key: `sk_test_${token(16)}`, webhook_secret: `whsec_${token(16)}` },
  };
}

async function* files(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

/** Every file under `dir` that holds one of `needles` in any spelling, as "file: needle". */
async function findIn(dir: string, needles: string[]): Promise<{ hits: string[]; searched: number }> {
  const spellings = needles.flatMap((n) =>
    [
      Buffer.from(n, "utf8"),
      Buffer.from(Buffer.from(n).toString("hex")),
      Buffer.from(Buffer.from(n).toString("base64").replace(/=+$/, "")),
    ].map((bytes) => ({ needle: n, bytes })),
  );
  const hits: string[] = [];
  let searched = 0;
  for await (const file of files(dir)) {
    // A live cluster removes temporary files while it is walked.
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!bytes?.length) continue;
    searched += 1;
    // Each hit names the needle it spells (a hex or base64 spelling does not contain it).
    for (const s of spellings) if (bytes.includes(s.bytes)) hits.push(`${file}: ${s.needle} as ${s.bytes}`);
  }
  return { hits, searched };
}

/**
 * A marker written in plain text beside the credentials: the search must find it, or it could
 * not have found a plain secret either (a check that cannot fail proves nothing).
 */
async function writeMarker(db: {
  query: (sql: string, params: unknown[]) => Promise<unknown>;
}): Promise<string> {
  const marker = `plain-marker-${randomBytes(8).toString("hex")}`;
  await db.query(
    "insert into gateway_messages (id, pg_code, raw, decoded, outcome) values ($1, 'marker', $2, '{}', 'marker')",
    [`gmsg_${marker}`, marker],
  );
  return marker;
}

async function storeSettings(stackUrl: { url: string }, s: ReturnType<typeof secrets>): Promise<void> {
  const m = await createMerchant(stackUrl);
  const base = `/v1/admin/merchants/${m.id}/gateways`;
  const tag = m.id.slice(4, 12);
  for (const body of [
    { pg_code: `knet-${tag}`, kind: "knet", currencies: ["KWD"], credentials: s.knet },
    { pg_code: `stripe-${tag}`, kind: "stripe", currencies: ["USD"], credentials: s.stripe },
  ])
    expect((await api(stackUrl, "POST", base, { auth: bearer, body })).status).toBe(201);
  // A change seals them again: the old and the new ciphertexts both reach the files.
  const changed = await api(stackUrl, "PATCH", `${base}/knet-${tag}`, {
    auth: bearer,
    body: { credentials: { tranportal_password: `${s.knet.tranportal_password}x` } },
  });
  expect(changed.status).toBe(200);
}

const plain = (s: ReturnType<typeof secrets>) => [
  s.knet.tranportal_password,
  s.knet.resource_key,
  s.stripe.secret_key,
  s.stripe.webhook_secret,
];

describe("gateway credentials at rest", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  // A file-backed PGlite of its own (~3.5 s, more on a busy machine) with a real stack on it.
  const PGLITE_TEST_TIMEOUT_MS = 120_000;

  it("are in no file of a PGlite data directory", { timeout: PGLITE_TEST_TIMEOUT_MS }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "svc-pglite-secrets-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const db = await openPglite(dir);
    await migrate(db);
    const stack = await startStack("pglite", { db });
    const s = secrets();
    let marker: string;
    try {
      await storeSettings(stack, s);
      marker = await writeMarker(db);
    } finally {
      await stack.close();
      await db.close();
    }
    const { hits, searched } = await findIn(dir, plain(s));
    expect(searched).toBeGreaterThan(10);
    expect(hits).toEqual([]);
    expect((await findIn(dir, [marker])).hits.length).toBeGreaterThan(0);
  });

  it.runIf(STORES.includes("postgres"))(
    "are in no file of the PostgreSQL cluster (heap, WAL, log)",
    async () => {
      const stack = await startStack("postgres");
      const s = secrets();
      try {
        await storeSettings(stack, s);
      } finally {
        await stack.close();
      }
      const db = await testDb("postgres");
      const marker = await writeMarker(db);
      await db.query("checkpoint");
      const [{ data_directory }] = (await db.query<{ data_directory: string }>("show data_directory")) as [
        { data_directory: string },
      ];
      // The cluster's directory: its data and, beside it, the server log. One pass for the
      // secrets and the marker: the cluster holds the whole suite's data by now (a second pass
      // over it took this test past its timeout on a loaded machine).
      const { hits, searched } = await findIn(path.dirname(data_directory), [...plain(s), marker]);
      expect(searched).toBeGreaterThan(100);
      expect(hits.filter((hit) => !hit.includes(marker))).toEqual([]);
      expect(hits.filter((hit) => hit.includes(marker)).length).toBeGreaterThan(0);
    },
    120_000,
  );
});
