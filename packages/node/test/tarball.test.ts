// Composite test: build @svc/node, `npm pack` it with @svc/webhooks, install both tarballs into a
// fresh TypeScript project as a merchant would, type-check a typed call (and a mistyped one,
// which must not compile), then run it against the real service.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant, createTransaction, type TestMerchant } from "../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../test/support/stack.js";

const pkgDir = path.resolve(import.meta.dirname, "..");
const repoRoot = path.resolve(pkgDir, "../..");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let work: string;
let project: string;
let stack: Stack;
let m: TestMerchant;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 90_000,
    env: { ...process.env, ...env },
  });
}

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    types: ["node"],
    lib: ["ES2022", "DOM"],
    outDir: "out",
  },
  include: ["index.ts"],
};

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "svc-node-tarball-"));
  run(process.execPath, [tsc, "-p", "tsconfig.build.json"], pkgDir);
  run("npm", ["pack", "--pack-destination", work], pkgDir);
  run("npm", ["pack", "--pack-destination", work], path.join(repoRoot, "packages/webhooks"));
  const tarballs = (await readdir(work)).filter((f) => f.endsWith(".tgz")).map((f) => path.join(work, f));
  project = path.join(work, "project");
  await mkdir(project);
  await writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "shop", private: true, type: "module" }),
  );
  await writeFile(path.join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));
  run(
    "npm",
    ["install", ...tarballs, "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
    project,
  );
  // Node's types from this repository (no download).
  await mkdir(path.join(project, "node_modules/@types"), { recursive: true });
  stack = await startStack("pglite");
  m = await createMerchant(stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  if (work) await rm(work, { recursive: true, force: true });
}, 30_000);

describe("the packed @svc/node", { timeout: 90_000 }, () => {
  it("ships dist only, depends on @svc/webhooks and openapi-fetch", async () => {
    const tarball = (await readdir(work)).find((f) => f.startsWith("svc-node-"))!;
    const listing = run("tar", ["-tzf", tarball], work).split("\n").filter(Boolean);
    expect(listing.every((f) => /^package\/(dist\/|package\.json$|README\.md$)/.test(f))).toBe(true);
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing.some((f) => f.includes(".test."))).toBe(false);
    const manifest = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], work));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@svc/webhooks", "openapi-fetch"]);
  });

  it("type-checks a typed call in a fresh TypeScript project, refuses a wrong one, and runs it against the service", async () => {
    const session = (await createTransaction(stack, m)).json.session_id as string;
    await writeFile(
      path.join(project, "index.ts"),
      `import { createSvc, SvcError, verifyWebhook } from "@svc/node";
const svc = createSvc({ apiUrl: process.env.SVC_API_URL!, apiKey: process.env.SVC_API_KEY! });
const payment = await svc.getPayment({ params: { path: { session_id: process.env.SESSION_ID! } } });
// The answer is typed from the document: its fields, their types and the states' union.
const state: "created" | "pending" | "attempted" | "authorized" | "paid" | "failed" | "canceled" | "expired" = payment.state;
const refundable: string = payment.refundable_amount;
console.error(state, refundable, payment.transactions.length);
try {
  await svc.createOperation({ body: { operation: "refund", session_id: process.env.SESSION_ID!, amount: "1.000" } });
} catch (error) {
  if (!(error instanceof SvcError)) throw error;
  console.log(JSON.stringify({ payment, refused: { status: error.status, code: error.code }, verify: typeof verifyWebhook }));
}
`,
    );
    const types = path.join(repoRoot, "node_modules/@types/node");
    await rm(path.join(project, "node_modules/@types/node"), { recursive: true, force: true });
    run("ln", ["-s", types, path.join(project, "node_modules/@types/node")], project);
    run(process.execPath, [tsc, "-p", "."], project);

    // A wrong operation name and a wrong body type must not compile.
    await writeFile(
      path.join(project, "wrong.ts"),
      `import { createSvc } from "@svc/node";
const svc = createSvc({ apiUrl: "http://x", apiKey: "k" });
await svc.createOperation({ body: { operation: "refundd", session_id: 1 } });
await svc.noSuchOperation();
const answer = await svc.getPayment({ params: { path: { session_id: "sess_x" } } });
const wrongType: number = answer.amount;
const noSuchField = answer.no_such_field;
`,
    );
    await writeFile(
      path.join(project, "tsconfig.wrong.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: { noEmit: true },
        include: ["wrong.ts"],
      }),
    );
    let errors = "";
    try {
      run(process.execPath, [tsc, "-p", "tsconfig.wrong.json"], project);
    } catch (e) {
      errors = String((e as { stdout?: string }).stdout);
    }
    expect(errors).toMatch(/"refundd"/);
    expect(errors).toMatch(/noSuchOperation/);
    expect(errors).toMatch(
      /wrong\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
    expect(errors).toMatch(/no_such_field/);

    // Asynchronously: the service answering it runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["out/index.js"], {
      cwd: project,
      timeout: 30_000,
      env: { ...process.env, SVC_API_URL: stack.url, SVC_API_KEY: m.privateKey, SESSION_ID: session },
    });
    const out = JSON.parse(stdout);
    // The payment is not paid yet: reading it works, refunding it is refused with a typed error.
    expect(out).toMatchObject({
      payment: { session_id: session },
      refused: { status: 409, code: expect.any(String) },
      verify: "function",
    });
  });
});
