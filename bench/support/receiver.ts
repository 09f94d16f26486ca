/** Starts bench/support/receiver-process.mjs and talks to it over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface BenchReceiver {
  url: string;
  /** Receipts since the last drain: message id → arrival time (wall clock, ms). */
  drain(): Promise<Map<string, number>>;
  stop(): void;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "receiver-process.mjs");
  const child: ChildProcess = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve) =>
    child.once("message", (m) => resolve((m as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    drain: () =>
      new Promise((resolve) => {
        child.once("message", (m) => resolve(new Map((m as { receipts: [string, number][] }).receipts)));
        child.send("drain");
      }),
    stop: () => {
      child.send("stop");
    },
  };
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const wallMs = () => performance.timeOrigin + performance.now();
