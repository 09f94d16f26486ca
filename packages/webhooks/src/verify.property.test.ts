// The security properties of the issue, checked over generated inputs with fast-check.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { operationPayload, SECRET } from "../test/fixtures.js";
import { verifyWebhook, WebhookVerificationError } from "./index.js";
import { generateTestHeaders, signWebhook } from "./signing.js";

const NOW = 1_800_000_000;
const opts = { nowSeconds: NOW };

async function fixture() {
  return generateTestHeaders(operationPayload(), SECRET, { timestamp: NOW, id: "msg_prop" });
}

async function rejectsWith(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "accepted";
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.code : `unexpected ${String(err)}`;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value inside `value`, objects and arrays included. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = prefix.length ? [prefix] : [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(...paths(value[i]!, [...prefix, i]));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  }
  return out;
}

function setAt(root: Json, path: (string | number)[], replacement: Json): Json {
  const copy = structuredClone(root);
  let node = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[path[path.length - 1]!] = replacement;
  return copy;
}

/** Same data, other key order (reversed or shuffled by the seed) and other spacing. */
function reorder(value: Json, seed: number): Json {
  if (Array.isArray(value)) return value.map((v) => reorder(v, seed));
  if (value && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => [k, reorder(v, seed)] as const);
    entries.sort(
      (a, b) => ((a[0].length * 31 + seed) % 7) - ((b[0].length * 31 + seed) % 7) || (seed % 2 ? -1 : 1),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

describe("verification properties", () => {
  it("changing any byte of the body makes verification fail", async () => {
    const { body, headers } = await fixture();
    const bytes = new TextEncoder().encode(body);
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), async (index, xor) => {
        const tampered = bytes.slice();
        tampered[index]! ^= xor;
        expect(await rejectsWith(verifyWebhook(tampered, headers, SECRET, opts))).toBe("signature_mismatch");
      }),
      { numRuns: 200 },
    );
  });

  it("changing any field at any depth fails, even with freshly signed headers", async () => {
    const { payload } = await fixture();
    const all = paths(payload as unknown as Json).filter((p) => p[0] !== "signature");
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...all), fc.jsonValue(), async (path, replacement) => {
        const original = payload as unknown as Json;
        const changed = setAt(original, path, replacement as Json);
        fc.pre(JSON.stringify(changed) !== JSON.stringify(original));
        const body = JSON.stringify(changed);
        // The old headers no longer match the body…
        const stale = (await fixture()).headers;
        expect(await rejectsWith(verifyWebhook(body, stale, SECRET, opts))).toBe("signature_mismatch");
        // …and a relay that re-signs the headers still cannot fake the payload field.
        const signature = await signWebhook({ id: "msg_prop", timestamp: NOW, body, secrets: SECRET });
        const resigned = { ...stale, "webhook-signature": signature };
        expect(await rejectsWith(verifyWebhook(body, resigned, SECRET, opts))).toBe(
          "payload_signature_mismatch",
        );
      }),
      { numRuns: 200 },
    );
  });

  it("changing the timestamp or the id makes verification fail", async () => {
    const { body, headers } = await fixture();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0),
        async (delta) => {
          const moved = { ...headers, "webhook-timestamp": String(NOW + delta) };
          expect(await rejectsWith(verifyWebhook(body, moved, SECRET, opts))).toBe("signature_mismatch");
        },
      ),
      { numRuns: 100 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), async (id) => {
        fc.pre(id !== headers["webhook-id"] && id.trim() === id && !/[\r\n]/.test(id));
        const renamed = { ...headers, "webhook-id": id };
        expect(await rejectsWith(verifyWebhook(body, renamed, SECRET, opts))).toBe("signature_mismatch");
      }),
      { numRuns: 100 },
    );
  });

  it("re-serialising with another key order and spacing keeps the payload signature valid", async () => {
    const { payload } = await fixture();
    await fc.assert(
      fc.asyncProperty(fc.nat(1000), fc.constantFrom(0, 1, 2, 4, "\t"), async (seed, space) => {
        const body = JSON.stringify(reorder(payload as unknown as Json, seed), null, space);
        const signature = await signWebhook({ id: "msg_prop", timestamp: NOW, body, secrets: SECRET });
        const headers = {
          "webhook-id": "msg_prop",
          "webhook-timestamp": String(NOW),
          "webhook-signature": signature,
        };
        const event = await verifyWebhook(body, headers, SECRET, opts);
        expect(event.payload).toEqual(payload);
      }),
      { numRuns: 100 },
    );
  });
});
