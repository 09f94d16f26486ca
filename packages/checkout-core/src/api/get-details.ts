import type { TransactionDetails } from "../types.js";
import { type ApiContext, request, sessionPath } from "./http.js";

/** `GET /v1/checkout/{session_id}`: the transaction details (skipped when `setupPreload` is given). */
export const getDetails = (ctx: ApiContext, sessionId: string) =>
  request<TransactionDetails>(ctx, "GET", sessionPath(sessionId));
