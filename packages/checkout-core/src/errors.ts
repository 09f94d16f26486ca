/**
 * Thrown for a wrong integration (bad options, missing element): a programming error on the
 * merchant's page, so it is thrown at once instead of being reported through a callback.
 * @example
 * try { new Checkout(options); } catch (e) { if (e instanceof CheckoutError) console.error(e.code, e.message); }
 */
export class CheckoutError extends Error {
  override readonly name = "CheckoutError";
  constructor(
    /** Stable code: invalid_merchant_id, private_key, invalid_api_key, missing_session_id, invalid_delegate, invalid_forms_of_payment, element_not_found. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
