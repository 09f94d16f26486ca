/** The callback data of the contract built from what happened, and the customer's words for an error. */
import { ApiProblem } from "./api/http.js";
import type { Texts } from "./i18n/index.js";
import type { ErrorCallbackData, FormOfPayment, TransactionDetails } from "./types.js";

/** The error callback data for a problem met while paying with `form`: the developer's detail. */
export function errorData(
  details: Pick<TransactionDetails, "session_id" | "order_no">,
  form: FormOfPayment,
  error: unknown,
): ErrorCallbackData {
  const message =
    error instanceof ApiProblem ? error.detail : error instanceof Error ? error.message : String(error);
  return {
    status: "error",
    message,
    form_of_payment: form,
    session_id: details.session_id,
    ...(details.order_no ? { order_no: details.order_no } : {}),
  };
}

/** What the customer reads for an error: never the developer's detail. */
export function customerMessage(t: Texts, error: unknown): string {
  if (!(error instanceof ApiProblem)) return t.err_generic;
  switch (error.code) {
    case "network_error":
      return t.err_network;
    case "session_expired":
      return t.err_expired;
    case "not_found":
    case "unauthorized":
    case "forbidden":
      return t.err_not_found;
    case "payment_in_progress":
      return t.err_in_progress;
    case "gateway_outcome_unknown":
      return t.err_unknown_outcome;
    case "invalid_state":
      return t.err_ended;
    case "no_payment_option":
      return t.noOptions;
    default:
      return error.status === 401 || error.status === 404 ? t.err_not_found : t.err_generic;
  }
}
