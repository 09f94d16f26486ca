/**
 * The device wallet through a small bridge: the app hands the view an object that answers the
 * seed's four checks and asks the platform's wallet for a payment token. A bridge over a device
 * wallet module (Apple Pay / Google Pay) is a few lines (docs/checkout-react-native.md); without
 * one the option says "not supported on this device", as the seed's check 2 does.
 */
import type { WalletChecks } from "@svc/checkout-core";

/** What the view asks the wallet to pay. */
export interface WalletPaymentRequest {
  /** The merchant identifier of the session's wallet settings (e.g. `merchant.com.shop`). */
  merchantIdentifier: string;
  currencyCode: string;
  /** The decimal amount, as the service sends it (`10.500`). */
  amount: string;
  /** What the sheet shows next to the amount: the order number, or the merchant's domain. */
  label: string;
}

/**
 * A device wallet, as the view uses it.
 * @example
 * const bridge: WalletBridge = {
 *   canMakePayments: () => wallet.isSupported(),
 *   canMakePaymentsWithActiveCard: (id) => wallet.hasCards(id),
 *   openPaymentSetup: () => wallet.openSetup(),
 *   requestPaymentToken: async (request) => (await wallet.pay(request))?.token ?? null,
 *   completePayment: (success) => wallet.close(success),
 * };
 */
export interface WalletBridge extends WalletChecks {
  /** Check 2: can this device pay with the wallet at all. */
  canMakePayments(): boolean | Promise<boolean>;
  /** Check 3: does it hold a card the merchant accepts. */
  canMakePaymentsWithActiveCard(merchantIdentifier: string): Promise<boolean>;
  /** The seed's Setup button: opens the wallet's card setup; resolves once it is closed. */
  openPaymentSetup(merchantIdentifier: string): Promise<boolean>;
  /** Check 4: shows the payment sheet; resolves to the token to send, or null when the customer cancelled. */
  requestPaymentToken(request: WalletPaymentRequest): Promise<string | null>;
  /** Closes the sheet with the service's answer (`true`: paid), for wallets whose sheet waits for it. */
  completePayment?(success: boolean): void | Promise<void>;
}
