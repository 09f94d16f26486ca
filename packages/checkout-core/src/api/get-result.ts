import type { CallbackData } from "../types.js";
import { type ApiContext, request, sessionPath } from "./http.js";

/** `GET /v1/checkout/{session_id}/payments/result`: polled while a hosted or gateway page is open. */
export const getResult = (ctx: ApiContext, sessionId: string) =>
  request<CallbackData | { status: "pending"; state: string }>(
    ctx,
    "GET",
    `${sessionPath(sessionId)}/payments/result`,
  );
