/**
 * The built `svc` is plain JavaScript: copied alone into an empty directory (no node_modules, no
 * tsx), it runs its integration commands — here `svc webhooks check` against a receiver on
 * loopback — and says where `svc dev` runs. `--help` works for every command (snapshot), and from
 * the packed package installed into an empty project with no dependencies and no network.
 */
import { execFile } from "node:child_process";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { webhookMiddleware } from "@svc/webhooks/node";
import { generateSecret } from "@svc/webhooks/sign";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../build.mjs";

const exec = promisify(execFile);
const pkgDir = path.resolve(import.meta.dirname, "..");

describe("the built svc (dist/svc.mjs)", () => {
  let dir: string;
  let cli: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "svc-cli-bundle-"));
    const built = await buildCli(path.join(dir, "build", "svc.mjs"));
    cli = path.join(dir, "svc.mjs");
    await copyFile(built, cli);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const svc = (args: string[]) =>
    exec(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeout: 20_000,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it("is one file of JavaScript for node, with no tsx in it", async () => {
    const text = await readFile(cli, "utf8");
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(text).not.toMatch(/from "tsx"|require\("tsx"\)/);
    const listed = await svc(["trigger", "--list", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((t: { name: string }) => t.name)).toContain(
      "operation.refund.queued",
    );
  });

  it("checks a receiver from an empty directory", async () => {
    const secret = generateSecret();
    const server = http.createServer(webhookMiddleware({ secrets: secret, onEvent: () => {} }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const result = await svc(["webhooks", "check", url, "--secret", secret, "--json"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ passed: true });
    } finally {
      server.close();
    }
  });

  it("has --help for every command, each naming its usage", async () => {
    const top = await svc(["--help"]);
    expect(top.code).toBe(0);
    const names = (text: string) =>
      [...text.split("Commands:")[1]!.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
        .map((m) => m[1]!)
        .filter((n) => n !== "help");
    const commands = names(top.stdout);
    expect(commands).toEqual(
      expect.arrayContaining(["dev", "serve", "gateway", "listen", "trigger", "webhooks"]),
    );
    let all = top.stdout;
    for (const command of commands) {
      const help = await svc([command, "--help"]);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^Usage: svc ${command}\\b`));
      all += `\n${help.stdout}`;
      if (!help.stdout.includes("Commands:")) continue;
      for (const sub of names(help.stdout)) {
        const subHelp = await svc([command, sub, "--help"]);
        expect(subHelp.code, `${command} ${sub}`).toBe(0);
        expect(subHelp.stdout).toMatch(new RegExp(`^Usage: svc ${command} ${sub}\\b`));
        all += `\n${subHelp.stdout}`;
      }
    }
    await expect(all).toMatchFileSnapshot("__snapshots__/help.txt");
  });

  it("`npx svc --help` works from the packed tarball installed alone (no dependencies, offline)", async () => {
    // The package as npm publishes it: package.json, bin/ and the dist built above.
    const pkg = path.join(dir, "pkg");
    await mkdir(path.join(pkg, "dist"), { recursive: true });
    await copyFile(path.join(pkgDir, "package.json"), path.join(pkg, "package.json"));
    await cp(path.join(pkgDir, "bin"), path.join(pkg, "bin"), { recursive: true });
    await copyFile(cli, path.join(pkg, "dist", "svc.mjs"));
    const manifest = JSON.parse(await readFile(path.join(pkg, "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    await exec("npm", ["pack", "--pack-destination", dir], { cwd: pkg, timeout: 60_000 });
    const tarball = (await readdir(dir)).find((f) => f.endsWith(".tgz"))!;
    const project = path.join(dir, "project");
    await mkdir(project);
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "shop", private: true }));
    await exec("npm", ["install", path.join(dir, tarball), "--offline", "--no-audit", "--no-fund"], {
      cwd: project,
      timeout: 60_000,
    });
    const help = await exec("npx", ["--no", "--", "svc", "--help"], { cwd: project, timeout: 30_000 });
    expect(help.stdout).toMatch(/^Usage: svc \[options\] \[command\]/);
    expect(help.stdout).toContain("listen [options]");
  });

  it("outside the repository, svc dev says where it runs (exit 2)", async () => {
    const result = await svc(["dev"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/runs the service from its repository/);
  });
});
