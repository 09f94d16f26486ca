/**
 * A WalletBridge over @rnw-community/react-native-payments (Apple Pay on iOS, Google Pay on
 * Android through the W3C Payment Request API): the seed's checks, Setup, and the payment token
 * the view sends to svc as `payment_token`.
 */
import {
  PaymentComplete,
  PaymentMethodNameEnum,
  PaymentRequest,
  SupportedNetworkEnum,
} from "@rnw-community/react-native-payments";
import type { WalletBridge, WalletPaymentRequest } from "@svc/checkout-react-native";
import { Linking, Platform } from "react-native";

const NETWORKS = [SupportedNetworkEnum.Visa, SupportedNetworkEnum.Mastercard];

function paymentRequest(
  r: Pick<WalletPaymentRequest, "merchantIdentifier" | "currencyCode"> & { amount?: string; label?: string },
) {
  const methods = [
    {
      supportedMethods: PaymentMethodNameEnum.ApplePay,
      data: {
        merchantIdentifier: r.merchantIdentifier,
        supportedNetworks: NETWORKS,
        countryCode: "KW",
        currencyCode: r.currencyCode,
      },
    },
    {
      supportedMethods: PaymentMethodNameEnum.AndroidPay,
      data: {
        supportedNetworks: NETWORKS,
        countryCode: "KW",
        currencyCode: r.currencyCode,
        environment: "TEST",
        gatewayConfig: { gateway: "example", gatewayMerchantId: r.merchantIdentifier },
      },
    },
  ];
  const details = {
    total: { label: r.label ?? "Total", amount: { currency: r.currencyCode, value: r.amount ?? "0" } },
  };
  return new PaymentRequest(methods as never, details);
}

/** The sheet of the payment under way, closed with the service's answer. */
let pending: { complete(result: PaymentComplete): Promise<void> } | undefined;

export const walletBridge: WalletBridge = {
  // Check 2: the device can pay with its wallet at all.
  canMakePayments: () =>
    paymentRequest({ merchantIdentifier: "check", currencyCode: "KWD" }).canMakePayment(),
  // Check 3: a card is enrolled.
  canMakePaymentsWithActiveCard: (merchantIdentifier) =>
    paymentRequest({ merchantIdentifier, currencyCode: "KWD" }).hasEnrolledInstrument(),
  // Setup: the wallet app, where the customer adds a card.
  openPaymentSetup: async () => {
    await Linking.openURL(
      Platform.OS === "ios" ? "shoebox://" : "https://pay.google.com/gp/w/home/paymentmethods",
    );
    return true;
  },
  // Check 4: the sheet; its token is what svc's gateway charges.
  requestPaymentToken: async (request) => {
    try {
      const response = await paymentRequest(request).show();
      pending = response;
      const details = response.details as { applePayToken?: unknown; androidPayToken?: unknown };
      return JSON.stringify(details.applePayToken ?? details.androidPayToken);
    } catch {
      return null; // the customer closed the sheet
    }
  },
  completePayment: async (success) => {
    await pending?.complete(success ? PaymentComplete.SUCCESS : PaymentComplete.FAIL);
    pending = undefined;
  },
};
