/** What every sandbox handler needs: the memory, the notifier, and where the server is reachable. */
import { randomBytes } from "node:crypto";
import type { Notifier } from "./notifier.js";
import type { SandboxState } from "./state.js";

export interface SandboxContext {
  state: SandboxState;
  notifier: Notifier;
  /** Base URL the customer's browser uses for gateway pages (no trailing slash). */
  publicUrl(): string;
  queuedDelayMs: number;
  /**
   * How long the answer to `POST /operations` waits after the operation was booked: a test
   * setting for a gateway that does the operation but answers after the caller gave up.
   */
  operationAnswerDelayMs: number;
  /** The same for `POST /payments`: a payment made, its answer late. */
  paymentAnswerDelayMs: number;
  /** Timers of queued operations, cleared on close. */
  timers: Set<NodeJS.Timeout>;
}

/** Random ids with a readable prefix, like a real gateway's references. */
export function sandboxId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/** Six digits, as national debit switches print them on receipts. */
export function authCode(): string {
  return String(randomBytes(3).readUIntBE(0, 3) % 1_000_000).padStart(6, "0");
}
