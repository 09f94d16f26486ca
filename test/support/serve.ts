/**
 * `svc serve` in its own process, as production runs it, for crash and multi-process tests.
 *
 * The process is started through tsx's CLI, which runs the service in a child process of its own
 * (a grandchild of the test) and does not pass SIGKILL on: killing only the CLI would leave the
 * service running. So each service gets its own process group (`detached`), and `kill()` signals
 * the whole group — the CLI and the service die together, as a machine losing the process would.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { SERVE_READY } from "../../packages/cli/src/commands/serve.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const START_TIMEOUT_MS = 60_000;

export interface ServeProcess {
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when the process group's leader exited. */
  exited: Promise<void>;
  /** Sends `signal` to the whole process group (the tsx CLI and the service). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `svc serve` with `env` (added to the test's environment) and waits for SERVE_READY. */
export async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "packages/cli/src/main.ts", "serve"],
    {
      cwd: ROOT,
      env: { ...process.env, SVC_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let dead = false;
  void exited.then(() => (dead = true));
  const kill = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  };
  const proc: ServeProcess = {
    child,
    output: () => out,
    exited,
    kill,
    async stop(graceMs = 10_000) {
      kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      // The service (the group's other member) may outlive the CLI by a moment.
      kill("SIGKILL");
    },
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!out.includes(SERVE_READY)) {
    if (dead) throw new Error(`svc serve exited (status ${child.exitCode}) before it was ready:\n${out}`);
    if (Date.now() > deadline) {
      kill("SIGKILL");
      throw new Error(`svc serve was not ready within ${START_TIMEOUT_MS} ms:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return proc;
}

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
