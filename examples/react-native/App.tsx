/**
 * The example app: one shop screen with a Buy button; the checkout view of
 * @svc/checkout-react-native for the session the example backend created; the national-debit
 * result popup after a cancel; a thank-you line after a success.
 */
import "react-native-get-random-values";
import {
  type CancelCallbackData,
  Checkout,
  type SuccessCallbackData,
  SvcResultPopup,
  type TransactionDetails,
} from "@svc/checkout-react-native";
import { useMemo, useState } from "react";
import { Button, SafeAreaView, ScrollView, Text } from "react-native";
import { walletBridge } from "./wallet-bridge";

/** The example backend (backend.mjs). On an Android emulator run `adb reverse tcp:3001 tcp:3001` (and 8080). */
const BACKEND = "http://localhost:3001";

interface Session {
  session_id: string;
  setup_preload: TransactionDetails;
  public_key: string;
  merchant_id: string;
}

export default function App() {
  const [session, setSession] = useState<Session>();
  const [paid, setPaid] = useState<SuccessCallbackData>();
  const [canceled, setCanceled] = useState<CancelCallbackData>();
  const [error, setError] = useState<string>();

  const checkout = useMemo(
    () =>
      session &&
      new Checkout({
        merchantId: session.merchant_id,
        apiKey: session.public_key,
        sessionId: session.session_id,
        setupPreload: session.setup_preload,
        walletBridge,
        delegate: {
          successCallback: setPaid,
          cancelCallback: setCanceled,
          // The seed's advice after an error: start again with a new session.
          errorCallback: (data) => setError(data.message),
        },
      }),
    [session],
  );

  const buy = async () => {
    setPaid(undefined);
    setError(undefined);
    const answer = await fetch(`${BACKEND}/session`, { method: "POST" });
    setSession((await answer.json()) as Session);
  };

  return (
    <SafeAreaView style={{ flex: 1 }}>
      <ScrollView contentContainerStyle={{ padding: 16 }}>
        <Text accessibilityRole="header" style={{ fontSize: 22, fontWeight: "700" }}>
          Example shop
        </Text>
        {paid ? <Text>Thank you: order {paid.order_no} is paid.</Text> : null}
        {error ? <Text>Something went wrong ({error}). Start again.</Text> : null}
        {!checkout || paid || error ? (
          <Button title="Buy for 10.500 KWD" onPress={() => void buy()} />
        ) : (
          checkout.paymentView()
        )}
      </ScrollView>
      <SvcResultPopup data={canceled} onClose={() => setCanceled(undefined)} />
    </SafeAreaView>
  );
}
