/**
 * The device wallet's four checks of the seed, whatever the platform's wallet is (a page's
 * ApplePaySession-style API in the browser, a native module through a bridge in an app):
 * 1. the session has a gateway linked to the wallet; 2. the device can pay with it; 3. it has an
 * active card (else the option offers Setup); 4. the payment itself (the platform's part).
 */

/** What the checks ask of a platform's wallet. */
export interface WalletChecks {
  canMakePayments(): boolean | Promise<boolean>;
  canMakePaymentsWithActiveCard(merchantIdentifier: string): Promise<boolean>;
}

/** What the wallet option shows: `unavailable` (no linked gateway: not listed), `unsupported`, `setup` or `ready`. */
export type WalletStatus = "unavailable" | "unsupported" | "setup" | "ready";

/** The session's wallet settings (`wallet_a` of the transaction details). */
export type SessionWallet = { merchant_identifier: string; pg_code: string } | null;

/** Checks 2, answered at once: no wallet, or one that says (or throws) the device cannot pay. */
export async function walletUnsupported(checks: WalletChecks | undefined): Promise<boolean> {
  try {
    return !checks || typeof checks.canMakePayments !== "function" || !(await checks.canMakePayments());
  } catch {
    return true;
  }
}

/** The checks 1 to 3, in order. */
export async function walletStatus(
  checks: WalletChecks | undefined,
  wallet: SessionWallet,
): Promise<WalletStatus> {
  if (!wallet?.pg_code) return "unavailable";
  if (await walletUnsupported(checks)) return "unsupported";
  try {
    return (await checks!.canMakePaymentsWithActiveCard(wallet.merchant_identifier)) ? "ready" : "setup";
  } catch {
    return "setup";
  }
}
