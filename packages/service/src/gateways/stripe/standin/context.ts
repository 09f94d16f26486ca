/** What every handler of the stand-in shares: the accounts, the event recorder, the timers. */
import type { Cause, EventRecorder } from "./events.js";
import type { FormObject } from "./form.js";
import type { AccountState } from "./store.js";

export interface StandInContext {
  accounts: AccountState[];
  events: EventRecorder;
  /** Base URL of the stand-in's browser pages (publicUrl, or the listener's URL). */
  publicUrl(): string;
  asyncRefundDelayMs: number;
  /** Timers of delayed changes (async refunds), cleared on close. */
  timers: Set<NodeJS.Timeout>;
}

/** One authenticated API request, as a handler sees it. */
export interface ApiRequest {
  ctx: StandInContext;
  account: AccountState;
  /** The form body (POST) or query (GET), parsed but not yet checked. */
  form: FormObject;
  /** Path segments after the resource, e.g. ["pi_123", "capture"]. */
  pathParams: string[];
  cause: Cause;
}

/** Runs `action` after `delayMs`, unless the stand-in closes first. */
export function later(ctx: StandInContext, delayMs: number, action: () => void): void {
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    action();
  }, delayMs);
  ctx.timers.add(timer);
}
