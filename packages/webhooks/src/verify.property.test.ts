// The security properties of the issue, checked over generated inputs with fast-check, on both
// payloads the service sends (an operation webhook and a payment webhook).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { operationPayload, paymentPayload, SECRET } from "../test/fixtures.js";
import { canonicalJson, verifyWebhook, WebhookVerificationError } from "./index.js";
import { generateTestHeaders, signWebhook } from "./signing.js";

const NOW = 1_800_000_000;
const opts = { nowSeconds: NOW };

async function rejectsWith(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "accepted";
  } catch (err) {
    return err instanceof WebhookVerificationError ? err.code : `unexpected ${String(err)}`;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Every path to a value inside `value`, objects and arrays included. */
function paths(value: Json, prefix: Path = []): Path[] {
  const out: Path[] = prefix.length ? [prefix] : [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(...paths(value[i]!, [...prefix, i]));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  }
  return out;
}

/** A copy of `root` and, in it, the container at `path`. */
function copyAt(root: Json, path: Path): [Json, Record<string | number, Json>] {
  const copy = structuredClone(root);
  let node = copy as Record<string | number, Json>;
  for (const key of path) node = node[key] as Record<string | number, Json>;
  return [copy, node];
}

function replaceAt(root: Json, path: Path, replacement: Json): Json {
  const [copy, parent] = copyAt(root, path.slice(0, -1));
  parent[path.at(-1)!] = replacement;
  return copy;
}

/** Without the key (or array item) at `path`. */
function deleteAt(root: Json, path: Path): Json {
  const [copy, parent] = copyAt(root, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
  else delete parent[path.at(-1)!];
  return copy;
}

/** With a new key (or, in an array, a new item at `index`) in the container at `path`. */
function addAt(root: Json, path: Path, key: string, index: number, value: Json): Json {
  const [copy, container] = copyAt(root, path);
  if (Array.isArray(container)) container.splice(index % (container.length + 1), 0, value);
  // Defined, not assigned: a "__proto__" key must become a key, as JSON.parse makes it.
  else Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
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

const payloads = {
  operation: operationPayload,
  payment: paymentPayload,
};

describe.each(Object.entries(payloads))("verification properties of the %s webhook", (_name, make) => {
  const fixture = () => generateTestHeaders(make(), SECRET, { timestamp: NOW, id: "msg_prop" });

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

  /**
   * A changed payload is refused: with the original headers (they no longer match the body), and
   * with headers re-signed over the changed body by a relay, because the payload field does not.
   * Both as JSON.stringify writes it and as canonical JSON, the form svc sends, whose text the
   * verifier checks first.
   */
  async function refusesChanged(changed: Json): Promise<void> {
    const bodies = [JSON.stringify(changed)];
    try {
      bodies.push(canonicalJson(changed));
    } catch {
      // a lone surrogate: RFC 8785 has no form for it (the JSON.stringify body covers it)
    }
    const stale = (await fixture()).headers;
    for (const body of bodies) {
      expect(await rejectsWith(verifyWebhook(body, stale, SECRET, opts))).toBe("signature_mismatch");
      const signature = await signWebhook({ id: "msg_prop", timestamp: NOW, body, secrets: SECRET });
      const resigned = { ...stale, "webhook-signature": signature };
      expect(await rejectsWith(verifyWebhook(body, resigned, SECRET, opts))).toBe(
        "payload_signature_mismatch",
      );
    }
  }

  const differs = (a: Json, b: Json) => JSON.stringify(a) !== JSON.stringify(b);

  it("replacing any field at any depth fails, even with freshly signed headers", async () => {
    const original = (await fixture()).payload as unknown as Json;
    const fields = paths(original).filter((p) => p[0] !== "signature");
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue(), async (path, replacement) => {
        const changed = replaceAt(original, path, replacement as Json);
        fc.pre(differs(changed, original));
        await refusesChanged(changed);
      }),
      { numRuns: 200 },
    );
  });

  it("deleting any key or array item at any depth fails, even with freshly signed headers", async () => {
    const original = (await fixture()).payload as unknown as Json;
    const fields = paths(original).filter((p) => p[0] !== "signature");
    // Few enough to try every one of them.
    for (const path of fields) {
      const changed = deleteAt(original, path);
      expect(differs(changed, original), path.join(".")).toBe(true);
      await refusesChanged(changed);
    }
  });

  it("adding a key or array item at any depth fails, even with freshly signed headers", async () => {
    const original = (await fixture()).payload as unknown as Json;
    const containers: Path[] = [
      [],
      ...paths(original).filter((p) => {
        const [, node] = copyAt(original, p);
        return node !== null && typeof node === "object";
      }),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...containers),
        fc.string(),
        fc.nat(),
        fc.jsonValue(),
        async (path, key, index, value) => {
          const [, container] = copyAt(original, path);
          fc.pre(Array.isArray(container) || !Object.hasOwn(container, key));
          const changed = addAt(original, path, key, index, value as Json);
          expect(differs(changed, original)).toBe(true);
          await refusesChanged(changed);
        },
      ),
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
