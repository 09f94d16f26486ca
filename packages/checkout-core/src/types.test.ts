import type {
  PaymentMethod as ServicePaymentMethod,
  CallbackData as ServiceCallbackData,
} from "@svc/protocol";
import { describe, expectTypeOf, it } from "vitest";
import type { CallbackData, PaymentMethod } from "./types.js";

describe("callback types", () => {
  it("are the service's own: the SDK's re-declaration and @svc/protocol agree both ways", () => {
    expectTypeOf<CallbackData>().toEqualTypeOf<ServiceCallbackData>();
    const data: CallbackData = { status: "error", message: "m", form_of_payment: "svc_pg" };
    expectTypeOf(data).toExtend<ServiceCallbackData>();
  });

  it("payment methods are the service's own too", () => {
    expectTypeOf<PaymentMethod>().toEqualTypeOf<ServicePaymentMethod>();
  });
});
