// The public API as the TypeScript compiler sees it: every export of every entry in package.json
// "exports" is documented with an example, and every type any entry exports is exported from the
// root too (so `import type { … } from "@svc/webhooks"` reaches all of them).
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const pkgDir = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as {
  exports: Record<string, string | { import: string }>;
};

/** Each entry's source file: "./dist/adapters/node.js" is built from "src/adapters/node.ts". */
const entries = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === "object")
  .map(([subpath, target]) => {
    const built = (target as { import: string }).import;
    return [
      subpath,
      path.join(pkgDir, built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")),
    ] as const;
  });

const program = ts.createProgram(
  entries.map(([, file]) => file),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
);
const checker = program.getTypeChecker();

/** The symbols `file` exports, each resolved through re-exports to where it is declared. */
function exportsOf(file: string): Map<string, ts.Symbol> {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is in package.json "exports" but does not exist`);
  const exported = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
    const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    exported.set(symbol.name, resolved);
  }
  return exported;
}

const hasExample = (symbol: ts.Symbol) =>
  (symbol.declarations ?? []).some((d) => ts.getJSDocTags(d).some((tag) => tag.tagName.text === "example"));

/** Interfaces and type aliases: the exports that exist only for the type checker. */
const isTypeOnly = (symbol: ts.Symbol) =>
  (symbol.flags & ts.SymbolFlags.Type) !== 0 && (symbol.flags & ts.SymbolFlags.Value) === 0;

describe("public API", () => {
  it("reads every entry of package.json exports", () => {
    expect(entries.map(([subpath]) => subpath)).toEqual([
      ".",
      "./sign",
      "./rules",
      "./dedupe",
      "./node",
      "./fastify",
      "./fetch",
      "./sequence",
      "./schema",
      "./notices",
    ]);
    for (const [, file] of entries) expect(exportsOf(file).size, file).toBeGreaterThan(0);
  });

  it("documents every export, types included, with a JSDoc @example", () => {
    const missing = entries.flatMap(([subpath, file]) =>
      [...exportsOf(file)].filter(([, symbol]) => !hasExample(symbol)).map(([name]) => `${subpath}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("exports from the root every type that any entry exports", () => {
    const root = exportsOf(entries[0]![1]);
    const missing = entries.flatMap(([subpath, file]) =>
      [...exportsOf(file)]
        .filter(([name, symbol]) => isTypeOnly(symbol) && root.get(name) !== symbol)
        .map(([name]) => `${subpath}: ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
