/**
 * The device wallet ("wallet A") as the SDK expects to find it on the page: an
 * ApplePaySession-style constructor, by default `window.WalletASession`.
 */

/** The event a wallet session fires when the customer approves: `payment.token.paymentData` is sent to the service. */
export interface WalletAAuthorizedEvent {
  payment: { token: { paymentData: unknown } };
}

/** One payment sheet. */
export interface WalletASessionLike {
  onpaymentauthorized: ((event: WalletAAuthorizedEvent) => void) | null;
  oncancel: (() => void) | null;
  begin(): void;
  /** `true` when the service approved the payment, `false` otherwise; the sheet closes. */
  completePayment(success: boolean): void;
}

/** The payment request handed to the wallet. */
export interface WalletAPaymentRequest {
  merchantIdentifier: string;
  countryCode?: string;
  currencyCode: string;
  total: { label: string; amount: string };
}

/**
 * The wallet API: static checks plus a constructor of payment sheets.
 * @example
 * // a fake for tests: supported, with cards, approving with token "ok"
 * window.WalletASession = class { static canMakePayments() { return true } … };
 */
export interface WalletAApi {
  canMakePayments(): boolean;
  canMakePaymentsWithActiveCard(merchantIdentifier: string): Promise<boolean>;
  openPaymentSetup(merchantIdentifier: string): Promise<boolean>;
  new (version: number, request: WalletAPaymentRequest): WalletASessionLike;
}

/** The seed's check 2, answered at once: no wallet API, or one that says the device cannot pay. */
export function walletAUnsupported(api: WalletAApi | undefined): boolean {
  try {
    return !api || typeof api.canMakePayments !== "function" || !api.canMakePayments();
  } catch {
    return true;
  }
}

/** The page's wallet, read only when a checkout is shown (never on import). */
export function pageWalletA(): WalletAApi | undefined {
  return (globalThis as { WalletASession?: WalletAApi }).WalletASession;
}
