/**
 * Faults a test arranges (`standIn.faults.push(…)`): lost answers, Stripe `api_error`s, delays.
 * Each fault is used up by the requests it matches, first one first.
 */
import type { StripeStandInFault } from "./types.js";

export interface FaultPlan {
  delayMs: number;
  failStatus?: 500 | 502 | 503;
  loseAnswer: boolean;
}

/** Injected 5xx answers are refused before anything runs, so they save no idempotent result. */
export const INJECTED_FAILURE_MESSAGE =
  "An unknown error occurred (injected by the Stripe stand-in's faults).";

function matches(fault: StripeStandInFault, path: string, method: string): boolean {
  if (fault.method && fault.method !== method) return false;
  return fault.path ? fault.path.test(path) : path.startsWith("/v1/");
}

/** Takes what the faults list holds for a `method` request to `path`, using the faults up. */
export function takeFaults(faults: StripeStandInFault[], path: string, method = "GET"): FaultPlan {
  const plan: FaultPlan = { delayMs: 0, loseAnswer: false };
  for (let i = 0; i < faults.length; i++) {
    const fault = faults[i];
    if (!fault || !matches(fault, path, method)) continue;
    if ("delayMs" in fault && plan.delayMs === 0) {
      plan.delayMs = fault.delayMs;
      if (fault.count !== undefined) fault.count -= 1;
    } else if ("failNext" in fault && plan.failStatus === undefined && !plan.loseAnswer) {
      plan.failStatus = fault.status;
      fault.failNext -= 1;
    } else if ("loseAnswers" in fault && plan.failStatus === undefined && !plan.loseAnswer) {
      plan.loseAnswer = true;
      fault.loseAnswers -= 1;
    }
  }
  for (let i = faults.length - 1; i >= 0; i--) {
    const f = faults[i];
    if (!f) continue;
    const spent =
      ("failNext" in f && f.failNext <= 0) ||
      ("loseAnswers" in f && f.loseAnswers <= 0) ||
      ("delayMs" in f && f.count !== undefined && f.count <= 0);
    if (spent) faults.splice(i, 1);
  }
  return plan;
}
