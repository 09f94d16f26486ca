/**
 * @svc/webhooks receiver: verifications per second of a 1 KB payload, side by side with the
 * standardwebhooks package in the same process, plus the library's minified + gzipped size: the
 * root entry (the target) in its browser and its Node build, each other entry alone and, for
 * reference, all entries together.
 *
 * Rounds alternate between the contenders (ours, theirs, ours, theirs…) so a noisy neighbour on
 * the shared machine slows both alike; each figure is the median round. Three groups, one after
 * the other, each with standardwebhooks beside it: the targets (node:crypto, svc's canonical
 * body), a re-serialised body (the canonical path), and the Web Crypto path (forced, as in
 * browsers and workers). The targets' group runs first, before the other paths have run at all.
 */
import { mkdir } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { Webhook } from "standardwebhooks";
import { forceWebCrypto } from "../packages/webhooks/test/web-crypto.js";
import { verifyWebhook, verifyWebhookHeaders } from "../packages/webhooks/src/index.js";
import { generateTestHeaders, signWebhook } from "../packages/webhooks/src/signing.js";
import { payloadOfSize } from "../packages/webhooks/test/fixtures.js";
import type { BenchResult } from "./run.ts";

// Many short rounds rather than a few long ones: the shared machine's speed drifts by ±30 % from
// one half-second to the next. The median of 25 alternated rounds moved from run to run a sixth
// (headers) to a half (full) as much as the median of five (2026-11-27, docs/benchmarks.md).
// Same 2.5 s per contender either way.
const ROUND_MS = 100;
const ROUNDS = 25;
const PAYLOAD_BYTES = 1024;

async function opsPerSecond(fn: () => unknown): Promise<number> {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ROUND_MS) {
    // Batches keep the clock out of the measurement.
    for (let i = 0; i < 64; i++) await fn();
    n += 64;
    elapsed = performance.now() - start;
  }
  return (n * 1000) / elapsed;
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `value` with the keys of every object in reverse order: the same bytes, another order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  }
  return value;
}

async function sideBySide(contenders: Record<string, () => unknown>): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(contenders)) {
    samples[name] = [];
    await opsPerSecond(fn); // warm-up: JIT and key caches
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of Object.entries(contenders)) samples[name]!.push(await opsPerSecond(fn));
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Math.round(median(v))]));
}

/** The entries besides the root, by subpath (`@svc/webhooks/<name>`), and their source files. */
const ENTRIES = {
  rules: "receiver-rules",
  dedupe: "dedupe",
  sign: "signing",
  node: "adapters/node",
  fastify: "adapters/fastify",
  fetch: "adapters/fetch",
  notices: "notices",
};

const SRC = new URL("../packages/webhooks/src/", import.meta.url).pathname;

/**
 * Minified + gzipped (level 9) size of an esbuild bundle of `entry` (source text in src/), as a
 * bundler targeting browsers and workers builds it (`"#mac"` without the "node" condition: the
 * Web Crypto HMAC), or with `node`, as Node, Bun, Deno and bundlers targeting Node get it (the
 * "node" condition: node:crypto's HMAC). See "imports" in packages/webhooks/package.json.
 */
async function gzipSize(entry: string, node = false): Promise<number> {
  const out = await build({
    stdin: { contents: entry, resolveDir: SRC, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: node ? "node" : "neutral",
    conditions: ["svc-source"],
    write: false,
  });
  return gzipSync(out.outputFiles[0]!.contents, { level: 9 }).length;
}

export default async function receiverBench(): Promise<BenchResult[]> {
  // run.ts writes bench/results/latest.json but does not create the folder on a fresh clone.
  await mkdir(new URL("./results/", import.meta.url), { recursive: true });
  const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`;
  const { body, headers, payload } = await generateTestHeaders(payloadOfSize(PAYLOAD_BYTES), secret);
  const bytes = Buffer.from(body);
  if (Math.abs(bytes.length - PAYLOAD_BYTES) > 64)
    throw new Error(`payload is ${bytes.length} bytes, not ~1 KB`);
  const theirs = new Webhook(secret);
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  // All three get the same inputs: the body as a Buffer (as Node servers receive it), the plain
  // lowercase header object, one whsec_ secret, and the real clock for the timestamp check.
  const results = await sideBySide({
    // standardwebhooks.verify: lower-cases the header names, checks that the three headers are
    // present, parses the timestamp and checks ±5 min, decodes the Buffer to a string, HMAC-SHA256
    // (fast-sha256, pure JS) over "{id}.{timestamp}.{body}", base64, compares it with every v1
    // entry in constant time, then decodes the Buffer again and JSON.parses it.
    standardwebhooks: () => theirs.verify(bytes, headers),
    // The same work on our side: verifyWebhookHeaders (three headers present, timestamp
    // unix-seconds and ±5 min, HMAC-SHA256 over the same bytes, constant-time compare with every
    // v1 entry), then decode the same Buffer (UTF-8, fatal) and JSON.parse it. Not counted
    // here: the payload `signature` field and the field rules, which standardwebhooks lacks.
    headers: async () => {
      await verifyWebhookHeaders(bytes, headers, secret);
      return JSON.parse(utf8.decode(bytes));
    },
    // verifyWebhook: everything above, plus the payload `signature` field (RFC 8785 canonical
    // JSON of the parsed payload, second HMAC-SHA256, constant-time compare) and every field
    // rule of the contract, returning the typed event.
    full: () => verifyWebhook(bytes, headers, secret),
  });
  const vs = { name: "standardwebhooks.verify_per_s", value: results.standardwebhooks! };

  // A body re-serialised with every key order reversed (same length, so standardwebhooks does the
  // same work), headers signed over it: its text is not the canonical form, so verifyWebhook
  // takes the full path, RFC 8785 canonical JSON of the parsed payload.
  const reserialised = Buffer.from(JSON.stringify(reversedKeys(payload)));
  if (reserialised.length !== bytes.length || reserialised.equals(bytes))
    throw new Error("the re-serialised body should differ from the canonical one in order only");
  const id = headers["webhook-id"];
  const timestamp = Number(headers["webhook-timestamp"]);
  const reserialisedHeaders = {
    ...headers,
    "webhook-signature": await signWebhook({ id, timestamp, body: reserialised, secrets: secret }),
  };
  const canonicalPath = await sideBySide({
    standardwebhooks: () => theirs.verify(reserialised, reserialisedHeaders),
    full: () => verifyWebhook(reserialised, reserialisedHeaders, secret),
  });

  // Web Crypto's subtle.sign, as in browsers, workers and Node < 20.16 (awaited per HMAC).
  forceWebCrypto(true);
  const webCrypto = await sideBySide({
    standardwebhooks: () => theirs.verify(bytes, headers),
    headers: async () => {
      await verifyWebhookHeaders(bytes, headers, secret);
      return JSON.parse(utf8.decode(bytes));
    },
    full: () => verifyWebhook(bytes, headers, secret),
  });
  forceWebCrypto(false);
  const beside = (group: Record<string, number>) => ({
    name: "standardwebhooks.verify_per_s",
    value: group.standardwebhooks!,
  });

  const root = 'export * from "./index.js";';
  const rootSizes = [await gzipSize(root), await gzipSize(root, true)];
  return [
    {
      name: "receiver.verify_headers_per_s",
      value: results.headers!,
      unit: "verif/s",
      vs,
      target: "≥ 3.5× standardwebhooks",
    },
    {
      name: "receiver.verify_full_per_s",
      value: results.full!,
      unit: "verif/s",
      vs,
      target: "≥ 2× standardwebhooks",
    },
    // No targets: the paths a receiver takes away from svc's canonical body on Node ≥ 20.16.
    {
      name: "receiver.verify_full_reserialised_per_s",
      value: canonicalPath.full!,
      unit: "verif/s",
      vs: beside(canonicalPath),
    },
    {
      name: "receiver.verify_headers_webcrypto_per_s",
      value: webCrypto.headers!,
      unit: "verif/s",
      vs: beside(webCrypto),
    },
    {
      name: "receiver.verify_full_webcrypto_per_s",
      value: webCrypto.full!,
      unit: "verif/s",
      vs: beside(webCrypto),
    },
    // The target figure: the root entry, `import … from "@svc/webhooks"`, which is all a receiver
    // needs to verify and parse. The other entries are separate imports: receiver rules
    // (`/rules`), deduper (`/dedupe`), signing and test helpers (`/sign`) and the adapters.
    // Two builds of it, one HMAC path each: the target holds for both, so the figure is the larger.
    {
      name: "receiver.size_gzip_bytes",
      value: Math.max(...rootSizes),
      unit: "B",
      target: "≤ 3900 (root entry only, the larger build)",
    },
    { name: "receiver.size_browser_gzip_bytes", value: rootSizes[0]!, unit: "B", target: "≤ 3900" },
    { name: "receiver.size_node_gzip_bytes", value: rootSizes[1]!, unit: "B", target: "≤ 3900" },
    // Each other entry alone, bundled with what it imports (so the adapters include verification),
    // the node and fastify adapters in their Node build, the others in the browsers' one.
    ...(await Promise.all(
      Object.entries(ENTRIES).map(async ([name, file]) => ({
        name: `receiver.size_entry_${name}_gzip_bytes`,
        value: await gzipSize(`export * from "./${file}.js";`, name === "node" || name === "fastify"),
        unit: "B",
      })),
    )),
    // For honesty, every entry bundled together (root and all the above): no target.
    {
      name: "receiver.size_all_entries_gzip_bytes",
      value: await gzipSize(
        ["index", ...Object.values(ENTRIES)].map((m) => `export * from "./${m}.js";`).join(" "),
      ),
      unit: "B",
    },
  ];
}
