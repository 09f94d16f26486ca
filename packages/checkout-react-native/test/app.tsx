/**
 * The test app: the view as an app mounts it, run in Chromium through react-native-web (the
 * test's bundle maps `react-native` to it). The test writes its options to `window.__config`;
 * the callbacks and the wallet bridge's calls are recorded on `window`.
 */
import { Component, type ReactNode } from "react";
import { AppRegistry } from "react-native";
import {
  ButtonComponent,
  type CallbackData,
  Checkout,
  CheckoutTheme,
  LabelComponent,
  SvcCheckoutView,
  SvcResultPopup,
  type WalletBridge,
} from "../src/index.js";

interface TestConfig {
  merchantId: string;
  apiKey: string;
  sessionId: string;
  locale?: string;
  appearance?: "light" | "dark";
  formsOfPayment?: ("walletAPay" | "walletBPay" | "svcPG" | "tokenPay" | "redirect")[];
  setupPreload?: never;
  /** A test wallet bridge: "ready", "nocards" (Setup adds one), "unsupported"; none without. */
  wallet?: "ready" | "nocards" | "unsupported";
  /** Mount `<SvcCheckoutView {...options} />` instead of `new Checkout(options).paymentView()`. */
  component?: boolean;
  /** Instead of the checkout: the result popup of this callback data. */
  popup?: CallbackData;
  /** A theme: the background, the main title's label and the button's component, as plain values. */
  theme?: { backgroundColor?: string | { light: string; dark: string }; mainTitle?: object; button?: object };
}

const w = window as unknown as {
  __config: TestConfig;
  __calls: [string, unknown][];
  __wallet: {
    cards: boolean;
    setupOpened: number;
    asked: string[];
    requests: unknown[];
    completed: boolean[];
  };
};
w.__calls = [];
w.__wallet = { cards: w.__config.wallet === "ready", setupOpened: 0, asked: [], requests: [], completed: [] };

function testBridge(mode: NonNullable<TestConfig["wallet"]>): WalletBridge {
  return {
    canMakePayments: () => mode !== "unsupported",
    canMakePaymentsWithActiveCard: async (id) => {
      w.__wallet.asked.push(id);
      return w.__wallet.cards;
    },
    openPaymentSetup: async () => {
      w.__wallet.setupOpened++;
      w.__wallet.cards = true;
      return true;
    },
    requestPaymentToken: async (request) => {
      w.__wallet.requests.push(request);
      return "tok-test";
    },
    completePayment: (success) => void w.__wallet.completed.push(success),
  };
}

const record = (name: string) => (data: unknown) => void w.__calls.push([name, data]);

/** What the view throws while rendering (a wrong option) is recorded as a call "thrown". */
class Thrown extends Component<{ children: ReactNode }, { error?: { code?: string; message: string } }> {
  override state: { error?: { code?: string; message: string } } = {};
  static getDerivedStateFromError(error: { code?: string; message: string }) {
    record("thrown")({ code: error.code, message: error.message });
    return { error };
  }
  override render() {
    return this.state.error ? null : this.props.children;
  }
}

const { wallet, popup, theme, component, ...options } = w.__config;
const viewOptions = {
  ...options,
  ...(wallet ? { walletBridge: testBridge(wallet) } : {}),
  ...(theme
    ? {
        theme: new CheckoutTheme({
          ...(theme.backgroundColor ? { backgroundColor: theme.backgroundColor } : {}),
          ...(theme.mainTitle ? { mainTitle: new LabelComponent(theme.mainTitle) } : {}),
          ...(theme.button ? { button: new ButtonComponent(theme.button) } : {}),
        }),
      }
    : {}),
  delegate: {
    successCallback: record("success"),
    cancelCallback: record("cancel"),
    errorCallback: record("error"),
  },
};
const checkout = component ? undefined : new Checkout(viewOptions);

AppRegistry.registerComponent("App", () =>
  popup
    ? () => (
        <SvcResultPopup
          data={popup}
          onClose={() => record("popup-closed")(null)}
          {...(options.locale ? { locale: options.locale } : {})}
          {...(options.appearance ? { appearance: options.appearance } : {})}
        />
      )
    : () => <Thrown>{checkout ? checkout.paymentView() : <SvcCheckoutView {...viewOptions} />}</Thrown>,
);
AppRegistry.runApplication("App", { rootTag: document.getElementById("root") });
