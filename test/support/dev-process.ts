/**
 * `svc dev` (and other `svc` commands) as a developer runs them: the CLI in its own process,
 * through tsx, from the repository's root.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");
const START_TIMEOUT_MS = 60_000;

export function startDev(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "packages/cli/src/main.ts", "dev"],
    {
      cwd: ROOT,
      env: { ...process.env, SVC_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc dev did not start:\n${out}`)), START_TIMEOUT_MS);
    const check = setInterval(() => {
      if (out.includes("Then open its checkout_url")) {
        clearTimeout(timer);
        clearInterval(check);
        resolve({ child, output: () => out });
      }
    }, 100);
    child.on("exit", (code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`svc dev exited with ${code}:\n${out}`));
    });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
