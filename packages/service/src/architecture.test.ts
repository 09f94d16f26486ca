/**
 * The dependency rule of the service's folders (docs/architecture.md, "Dependency direction"):
 * no two folders import each other, and `webhooks/` — the outbox and delivery engine — imports
 * no domain. The imports are read from the sources (static `from "…"` and dynamic `import("…")`,
 * types included: a type import is a dependency too).
 *
 * The rule was reached in steps (issue 12); the lists of what still broke it are empty now and
 * stay in the test, so a new break fails it with the pair named.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(fileURLToPath(import.meta.url));
/** Folders that are a business domain: `webhooks/` must not know any of them. */
const DOMAINS = [
  "auth",
  "checkout",
  "dashboard",
  "gateways",
  "merchants",
  "operations",
  "payments",
  "sdk-assets",
];

/** Pairs of folders that still import each other: none left; a new one fails the test. */
const KNOWN_CYCLES: string[] = [];
/** Domains `webhooks/` still imports: none left; the list stays so the test reads the same way. */
const KNOWN_WEBHOOKS_DOMAIN_IMPORTS: string[] = [];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** The folder a file belongs to (its first segment under src/), or the root file's own name. */
function unitOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.(js|ts)$/, "");
}

/** unit → the units it imports. */
export function dependencyGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const importRe = /(?:\bfrom\s+|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
  for (const file of sources(SRC)) {
    const from = unitOf(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(importRe)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (!target.startsWith(SRC + path.sep)) continue; // another package
      const to = unitOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

describe("the service's dependency direction", () => {
  const graph = dependencyGraph();
  const imports = (a: string, b: string) => graph.get(a)?.has(b) === true;

  it("sees the imports it checks (a sanity check of the reader)", () => {
    expect(imports("app", "webhooks")).toBe(true);
    expect(imports("checkout", "db")).toBe(true);
    expect(graph.size).toBeGreaterThan(10);
  });

  it("no two folders import each other, beyond the listed ones being removed", () => {
    const cycles = new Set<string>();
    for (const [a, targets] of graph)
      for (const b of targets) if (imports(b, a)) cycles.add([a, b].sort().join(" <-> "));
    expect([...cycles].sort()).toEqual([...KNOWN_CYCLES].sort());
  });

  it("webhooks/ imports no domain, beyond the listed ones being removed", () => {
    const domains = [...(graph.get("webhooks") ?? [])].filter((d) => DOMAINS.includes(d)).sort();
    expect(domains).toEqual([...KNOWN_WEBHOOKS_DOMAIN_IMPORTS].sort());
  });
});

describe("route inputs are typed by their schemas", () => {
  /**
   * Routes are registered on `typed(app)` (http/schema.ts): `request.body`, `params` and `query`
   * take their types from the TypeBox schema that validated them. A cast would silently
   * disagree with the schema; only the input guard, a hook that runs before any schema, reads
   * an unvalidated query.
   */
  const ALLOWED = new Set(["http/input-guard.ts"]);
  const CAST = /request\.(?:body|query|params)\s+as\s/;

  it("finds a cast when there is one (a check of the pattern)", () => {
    expect(CAST.test("const b = request.body as Body;")).toBe(true);
    expect(CAST.test("const b = request.body;")).toBe(false);
  });

  it("no source casts request.body, params or query", () => {
    const casts = sources(SRC)
      .map((file) => path.relative(SRC, file))
      .filter((rel) => !ALLOWED.has(rel) && CAST.test(readFileSync(path.join(SRC, rel), "utf8")));
    expect(casts).toEqual([]);
  });
});
