/**
 * The checkout view of the source document, for React Native: the transaction's forms of payment
 * (or the minified single-wallet view), each with its own flow, and one of the delegate's three
 * callbacks at the end. Built from React Native's own components; every decision that is not
 * drawing (what to list, the callback data, the texts, the API) is @svc/checkout-core's.
 */
import {
  type ApiContext,
  ApiProblem,
  baseUrlOf,
  type CallbackData,
  type CheckoutOptionsBase,
  confirmOtp,
  createReporter,
  customerMessage,
  errorData,
  FORM_OF,
  fill,
  type FormOfPayment,
  getDetails,
  getResult,
  isMinified,
  isTransient,
  type Language,
  type OptionEntry,
  type PaymentAnswer,
  type PaymentMethod,
  savedCardsFirst,
  sessionEnd,
  availableOptions,
  startPayment,
  textsFor,
  type TransactionDetails,
  validateOptions,
  type WalletStatus,
  walletStatus,
} from "@svc/checkout-core";
import { type ReactElement, useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  AccessibilityInfo,
  ActivityIndicator,
  AppState,
  findNodeHandle,
  Linking,
  Platform,
  Pressable,
  Text,
  TextInput,
  View,
} from "react-native";
import { deviceAppearance, deviceLanguage } from "./device.js";
import { type Appearance, type ResolvedTheme, resolveTheme } from "./theme.js";
import type { WalletBridge } from "./wallet-bridge.js";

/** The view's options: the seed's initialisation, plus what an app can give. */
export interface CheckoutViewOptions extends CheckoutOptionsBase {
  /** The device wallet (see WalletBridge); without it the device wallet is "not supported". */
  walletBridge?: WalletBridge;
  /** The device's locale at init (default: the JavaScript runtime's); `ar*` shows Arabic. */
  locale?: string;
  /** The appearance at init (default: the device's, `Appearance.getColorScheme()`). */
  appearance?: Appearance;
}

/** The outcome screen: its title, what happened, and (declined, error) the way forward. */
type Outcome = { kind: "success" | "declined" | "error"; title: string; body: string; next?: string };

const POLL_MS = 1000;
/** After this long without a result, the view stops asking (the app's return still asks). */
const GIVE_UP_MS = 30 * 60 * 1000;
const FINAL_STATUSES = new Set(["success", "canceled", "error"]);

const keyOf = (e: OptionEntry) => `${e.method.form_of_payment}:${e.method.pg_code}:${e.card?.token ?? ""}`;

/**
 * The checkout view.
 * @example
 * <SvcCheckoutView merchantId="shop.example.com" apiKey="pk_…" sessionId={id} delegate={delegate} />
 */
export function SvcCheckoutView(props: CheckoutViewOptions): ReactElement {
  // The component is an entry of its own (`<SvcCheckoutView {...options} />`): its options are
  // checked as `new Checkout(options)` checks them, so a private key never leaves the app.
  validateOptions(props);
  // Language and appearance are read once, at init (the seed: they follow the device then).
  const [language] = useState<Language>(() => deviceLanguage(props.locale));
  const [appearance] = useState<Appearance>(() => deviceAppearance(props.appearance));
  const t = textsFor(language);
  const theme = useMemo(() => resolveTheme(props.theme, appearance), [props.theme, appearance]);
  const api = useMemo<ApiContext>(
    () => ({ baseUrl: baseUrlOf(props.merchantId), apiKey: props.apiKey }),
    [props.merchantId, props.apiKey],
  );
  const report = useMemo(() => createReporter(api, () => import("./reporter.js")), [api]);

  const [details, setDetails] = useState<TransactionDetails | undefined>(props.setupPreload);
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<string | undefined>();
  const [waiting, setWaiting] = useState<{ url: string; form: FormOfPayment } | undefined>();
  /** The page's payment has started there (state attempted): the checkout is bound to it. */
  const [bound, setBound] = useState(false);
  const [wallet, setWallet] = useState<WalletStatus | undefined>();
  const finished = useRef(false);
  const delegate = useRef(props.delegate);
  delegate.current = props.delegate;

  /** Shows the outcome and calls its callback, once; every `error` is reported, as the browser view does. */
  const finish = useCallback(
    (data: CallbackData, shown?: string) => {
      if (finished.current) return;
      finished.current = true;
      setBusy(false);
      setWaiting(undefined);
      try {
        if (data.status === "success") {
          setOutcome({ kind: "success", title: t.successTitle, body: t.successBody });
          delegate.current.successCallback(data);
        } else if (data.status === "canceled") {
          // The service's message, in the transaction's language, then the way forward.
          setOutcome({ kind: "declined", title: t.declinedTitle, body: data.message, next: t.declinedNext });
          delegate.current.cancelCallback(data);
        } else {
          setOutcome({ kind: "error", title: t.errorTitle, body: shown ?? t.err_generic, next: t.errorNext });
          delegate.current.errorCallback(data);
        }
      } finally {
        // An `error` answer of the service too, not only the SDK's own errors.
        if (data.status === "error")
          void report({
            message: data.message,
            session_id: data.session_id ?? props.sessionId,
            form_of_payment: data.form_of_payment,
          });
      }
    },
    [props.sessionId, report, t],
  );

  const fail = useCallback(
    (form: FormOfPayment, error: unknown) => {
      const data = errorData(details ?? { session_id: props.sessionId, order_no: null }, form, error);
      finish(data, customerMessage(t, error));
    },
    [details, finish, props.sessionId, t],
  );

  /** A final answer ends the checkout; an OTP or a page to open is returned to the flow. */
  const settle = useCallback(
    (answer: PaymentAnswer) => {
      if (answer.status === "otp_required" || answer.status === "redirect") return answer;
      finish(answer);
      return undefined;
    },
    [finish],
  );

  const forms = props.formsOfPayment?.map((f) => FORM_OF[f]);
  // Before an option is chosen, an error names the first requested form (svc_pg by default).
  const firstForm = forms?.[0] ?? "svc_pg";

  // The details: from setupPreload, else one request.
  useEffect(() => {
    if (details) return;
    let live = true;
    getDetails(api, props.sessionId).then(
      (d) => live && setDetails(d),
      (error: unknown) => live && fail(firstForm, error),
    );
    return () => {
      live = false;
    };
  }, [api, details, fail, firstForm, props.sessionId]);

  const methods = useMemo(() => (details ? availableOptions(details, forms) : []), [details, forms?.join()]);
  const entries = useMemo(() => (details ? savedCardsFirst(methods, details.cards) : []), [details, methods]);
  const minified = isMinified(methods);
  // The browser view's check (@svc/checkout-core): list the options, hand over a final session's
  // stored outcome, or end with errorCallback (expired, a payment in progress, no option).
  const end = useMemo(() => (details ? sessionEnd(details, methods) : undefined), [details, methods]);

  useEffect(() => {
    if (!details || !end) return;
    let live = true;
    if (end === "final")
      getResult(api, details.session_id).then(
        (result) => live && result.status !== "pending" && finish(result),
        (error: unknown) => live && fail(firstForm, error),
      );
    else fail(firstForm, end);
    return () => {
      live = false;
    };
  }, [api, details, end, fail, finish, firstForm]);

  // The device wallet's checks, once the details are known.
  useEffect(() => {
    if (!details || !methods.some((m) => m.form_of_payment === "wallet_a_pay")) return;
    let live = true;
    void walletStatus(props.walletBridge, details.wallet_a).then((s) => live && setWallet(s));
    return () => {
      live = false;
    };
  }, [details, methods, props.walletBridge]);

  // A page opened in the browser: its result is read while waiting (one request at a time) and
  // at once when the app is active again; after 30 minutes only the latter.
  useEffect(() => {
    if (!waiting || !details) return;
    let live = true;
    let inFlight = false;
    const started = Date.now();
    const check = async () => {
      if (inFlight || !live) return;
      inFlight = true;
      try {
        const result = await getResult(api, details.session_id);
        if (!live) return;
        if (FINAL_STATUSES.has(result.status)) finish(result as CallbackData);
        else setBound("state" in result && result.state === "attempted");
      } catch (error) {
        // getResult already retried; a longer outage keeps the page's payment alive: ask on, as
        // the browser view does. A decided error ends the checkout.
        if (live && !isTransient(error)) fail(waiting.form, error);
      } finally {
        inFlight = false;
      }
    };
    void (async () => {
      while (live && Date.now() - started < GIVE_UP_MS) {
        await new Promise<void>((resolve) => setTimeout(resolve, POLL_MS));
        await check();
      }
    })();
    const sub = AppState.addEventListener("change", (state) => state === "active" && void check());
    return () => {
      live = false;
      sub.remove();
    };
  }, [api, details, fail, finish, waiting]);

  if (outcome)
    return (
      <Shell theme={theme} language={language}>
        <OutcomeView outcome={outcome} theme={theme} t={t} details={details} />
      </Shell>
    );

  if (!details)
    return (
      <Shell theme={theme} language={language}>
        <ActivityIndicator color={theme.icon} accessibilityLabel={t.loading} />
        <Text style={[styles.body, theme.subtitle]}>{t.loading}</Text>
      </Shell>
    );
  // A session that lists nothing: its stored outcome or its error is on the way.
  if (end)
    return (
      <Shell theme={theme} language={language}>
        <ActivityIndicator color={theme.icon} accessibilityLabel={t.working} />
      </Shell>
    );

  const amountText = `${details.amount} ${details.currency_code}`;
  const shared: FlowProps = { t, theme, api, details, busy, setBusy, settle, fail, amountText };

  const flowFor = (entry: OptionEntry) => {
    const m = entry.method;
    switch (m.form_of_payment) {
      case "wallet_b_pay":
        return <WalletBFlow {...shared} method={m} />;
      case "token_pay":
        return (
          <PrimaryButton
            theme={theme}
            disabled={busy}
            title={fill(t.payAmount, { amount: amountText })}
            onPress={() => {
              setBusy(true);
              startPayment(api, details.session_id, {
                form_of_payment: "token_pay",
                pg_code: m.pg_code,
                token: entry.card!.token,
              }).then(settle, (e: unknown) => fail("token_pay", e));
            }}
          />
        );
      case "wallet_a_pay":
        return (
          <WalletAFlow
            {...shared}
            method={m}
            status={wallet}
            bridge={props.walletBridge}
            merchantId={props.merchantId}
            onStatus={setWallet}
          />
        );
      default:
        return (
          <PrimaryButton
            theme={theme}
            disabled={busy}
            title={m.form_of_payment === "svc_pg" ? t.card : t.redirect}
            onPress={() => {
              setBusy(true);
              startPayment(api, details.session_id, {
                form_of_payment: m.form_of_payment,
                pg_code: m.pg_code,
              }).then(
                (answer) => {
                  const next = settle(answer);
                  if (next?.status !== "redirect") return;
                  // The card page opens in the view's language.
                  const url =
                    m.form_of_payment === "svc_pg"
                      ? withLang(next.redirect_url, language)
                      : next.redirect_url;
                  setBound(false);
                  setWaiting({ url, form: m.form_of_payment });
                  void Linking.openURL(url);
                },
                (e: unknown) => fail(m.form_of_payment, e),
              );
            }}
          />
        );
    }
  };

  return (
    <Shell theme={theme} language={language} minified={minified}>
      {theme.showPaymentDetails && !minified && (
        <View style={styles.details}>
          <Text accessibilityRole="header" style={[styles.h1, theme.mainTitle]}>
            {t.title}
          </Text>
          <Text style={[styles.body, theme.dataLabel]}>
            {t.amount}: <Text style={[styles.ltr, theme.dataValue]}>{`\u2066${amountText}\u2069`}</Text>
          </Text>
          {details.order_no ? (
            <Text style={[styles.body, theme.dataLabel]}>
              {t.order}:{" "}
              <Text style={[styles.ltr, theme.dataValue]}>{`\u2066${details.order_no}\u2069`}</Text>
            </Text>
          ) : null}
        </View>
      )}
      {waiting ? (
        <View accessibilityRole="alert" style={styles.banner} testID="svc-waiting">
          <Text style={[styles.h2, theme.title]}>{t.waitingTitle}</Text>
          <Text style={[styles.body, theme.subtitle]}>{t.waitingPage}</Text>
          <PrimaryButton
            theme={theme}
            title={t.showWindow}
            onPress={() => void Linking.openURL(waiting.url)}
          />
          {bound ? null : (
            // Nothing was paid on that page yet: the customer may pay another way instead.
            <PrimaryButton
              theme={theme}
              title={t.chooseAnother}
              onPress={() => {
                setWaiting(undefined);
                setBusy(false);
              }}
            />
          )}
        </View>
      ) : null}
      {minified ? (
        <View testID={`svc-option-${entries[0]!.method.form_of_payment}`}>{flowFor(entries[0]!)}</View>
      ) : (
        <View accessibilityRole="radiogroup" accessibilityLabel={t.choose}>
          <Text style={[styles.h2, theme.title]}>{t.choose}</Text>
          {entries.map((entry) => {
            const key = keyOf(entry);
            const open = selected === key;
            return (
              <View
                key={key}
                style={[styles.option, { borderColor: theme.line }]}
                testID={`svc-option-${entry.method.form_of_payment}`}
              >
                <Pressable
                  accessibilityRole="radio"
                  accessibilityState={{ checked: open, disabled: busy }}
                  aria-checked={open}
                  disabled={busy}
                  onPress={() => setSelected(key)}
                  style={styles.optionHead}
                >
                  <View style={[styles.radio, { borderColor: theme.icon }]}>
                    {open ? <View style={[styles.radioDot, { backgroundColor: theme.icon }]} /> : null}
                  </View>
                  <View style={styles.optionText}>
                    <Text style={[styles.body, theme.title]}>{optionName(entry, t)}</Text>
                    {entry.card ? (
                      <Text style={[styles.small, theme.subtitle]}>
                        {fill(t.savedCardExpiry, { expiry: entry.card.expiry })}
                      </Text>
                    ) : null}
                    {Number(entry.method.fee) > 0 ? (
                      <Text style={[styles.small, theme.fee]}>{entry.method.fee_description}</Text>
                    ) : null}
                    {entry.method.form_of_payment === "wallet_a_pay" && wallet === "unsupported" ? (
                      <Text style={[styles.small, theme.subtitle]}>{t.walletAUnsupported}</Text>
                    ) : null}
                  </View>
                </Pressable>
                {open ? <View style={styles.flow}>{flowFor(entry)}</View> : null}
              </View>
            );
          })}
        </View>
      )}
      {busy ? <ActivityIndicator color={theme.icon} accessibilityLabel={t.working} /> : null}
    </Shell>
  );
}

/** The end of the checkout: what happened, the amount and order, and the focus moved there. */
function OutcomeView(p: {
  outcome: Outcome;
  theme: ResolvedTheme;
  t: ReturnType<typeof textsFor>;
  details: TransactionDetails | undefined;
}): ReactElement {
  const { outcome, theme, t, details } = p;
  const ref = useRef<View>(null);
  useEffect(() => {
    // The button that was pressed is gone: a keyboard or screen-reader user lands on the result.
    if (Platform.OS === "web") (ref.current as unknown as { focus?: () => void } | null)?.focus?.();
    else {
      const tag = findNodeHandle(ref.current);
      if (tag) AccessibilityInfo.setAccessibilityFocus(tag);
    }
  }, []);
  return (
    <View
      ref={ref}
      tabIndex={-1}
      accessibilityRole="alert"
      accessibilityLiveRegion="polite"
      testID="svc-outcome"
    >
      <Text accessibilityRole="header" style={[styles.h1, theme.mainTitle]}>
        {outcome.title}
      </Text>
      {details && outcome.kind !== "error" ? (
        <>
          <Text style={[styles.body, theme.dataLabel]}>
            {t.amount}:{" "}
            <Text
              style={[styles.ltr, theme.dataValue]}
            >{`\u2066${details.amount} ${details.currency_code}\u2069`}</Text>
          </Text>
          {details.order_no ? (
            <Text style={[styles.body, theme.dataLabel]}>
              {t.order}:{" "}
              <Text style={[styles.ltr, theme.dataValue]}>{`\u2066${details.order_no}\u2069`}</Text>
            </Text>
          ) : null}
        </>
      ) : null}
      <Text style={[styles.body, theme.subtitle]}>{outcome.body}</Text>
      {outcome.next ? <Text style={[styles.body, theme.subtitle]}>{outcome.next}</Text> : null}
    </View>
  );
}

function withLang(url: string, language: Language): string {
  return `${url}${url.includes("?") ? "&" : "?"}lang=${language}`;
}

function optionName(entry: OptionEntry, t: ReturnType<typeof textsFor>): string {
  if (entry.card)
    return fill(t.savedCard, { brand: entry.card.brand.toUpperCase(), last4: entry.card.last4 });
  return entry.method.name;
}

interface FlowProps {
  t: ReturnType<typeof textsFor>;
  theme: ResolvedTheme;
  api: ApiContext;
  details: TransactionDetails;
  busy: boolean;
  setBusy(on: boolean): void;
  settle(answer: PaymentAnswer): Exclude<PaymentAnswer, CallbackData> | undefined;
  fail(form: FormOfPayment, error: unknown): void;
  amountText: string;
}

/** walletBPay: the mobile number (prefilled when known), then the one-time code. */
function WalletBFlow(p: FlowProps & { method: PaymentMethod }): ReactElement {
  const { t, theme } = p;
  const [number, setNumber] = useState((p.details.customer_phone ?? "").replace(/[^0-9+]/g, ""));
  const [code, setCode] = useState("");
  const [reference, setReference] = useState<string | undefined>();
  const [error, setError] = useState("");

  const sendNumber = async () => {
    const digits = number.replace(/[\s-]/g, "");
    if (!/^\+?[0-9]{6,15}$/.test(digits)) return setError(t.mobileWrong);
    setError("");
    p.setBusy(true);
    try {
      const next = p.settle(
        await startPayment(p.api, p.details.session_id, {
          form_of_payment: "wallet_b_pay",
          pg_code: p.method.pg_code,
          mobile_number: digits,
        }),
      );
      if (next?.status === "otp_required") {
        setReference(next.otp_reference);
        p.setBusy(false);
      }
    } catch (e) {
      if (e instanceof ApiProblem && e.code === "validation_failed") {
        p.setBusy(false);
        setError(t.mobileWrong);
      } else p.fail("wallet_b_pay", e);
    }
  };

  const sendCode = async () => {
    if (!/^[0-9]{4,8}$/.test(code.trim())) return setError(t.otpFormat);
    setError("");
    p.setBusy(true);
    try {
      p.settle(await confirmOtp(p.api, p.details.session_id, reference!, code.trim()));
    } catch (e) {
      if (e instanceof ApiProblem && e.code === "invalid_otp") {
        p.setBusy(false);
        setError(t.otpWrong);
      } else p.fail("wallet_b_pay", e);
    }
  };

  const field = reference
    ? {
        label: t.otp,
        hint: t.otpHint,
        value: code,
        onChange: setCode,
        id: "otp",
        autoComplete: "one-time-code" as const,
      }
    : {
        label: t.mobileNumber,
        hint: t.mobileHint,
        value: number,
        onChange: setNumber,
        id: "mobile_number",
        autoComplete: "tel" as const,
      };
  return (
    <View>
      <Text nativeID={`${field.id}-label`} style={[styles.label, theme.field.label]}>
        {field.label}
      </Text>
      <TextInput
        testID={field.id}
        accessibilityLabelledBy={`${field.id}-label`}
        accessibilityLabel={field.label}
        accessibilityHint={field.hint}
        value={field.value}
        onChangeText={field.onChange}
        keyboardType="number-pad"
        autoComplete={field.autoComplete}
        editable={!p.busy}
        style={[
          styles.input,
          { backgroundColor: theme.field.background, borderColor: error ? theme.error.color : theme.line },
          theme.field.text,
          styles.ltrInput,
        ]}
      />
      <Text style={[styles.small, theme.subtitle]}>{field.hint}</Text>
      {error ? (
        <Text
          accessibilityLiveRegion="assertive"
          accessibilityRole="alert"
          style={[styles.small, theme.error]}
        >
          {error}
        </Text>
      ) : null}
      <PrimaryButton
        theme={theme}
        disabled={p.busy}
        title={reference ? fill(t.payAmount, { amount: p.amountText }) : t.sendCode}
        onPress={() => void (reference ? sendCode() : sendNumber())}
      />
    </View>
  );
}

/** walletAPay through the app's wallet bridge: the seed's checks, Setup, then the payment sheet. */
function WalletAFlow(
  p: FlowProps & {
    method: PaymentMethod;
    status: WalletStatus | undefined;
    bridge: WalletBridge | undefined;
    merchantId: string;
    onStatus(status: WalletStatus): void;
  },
): ReactElement {
  const { t, theme } = p;
  const wallet = p.details.wallet_a;
  if (p.status === undefined) return <ActivityIndicator color={theme.icon} accessibilityLabel={t.loading} />;
  if (p.status === "unsupported" || !wallet || !p.bridge)
    return <Text style={[styles.small, theme.subtitle]}>{t.walletAUnsupported}</Text>;
  const bridge = p.bridge;
  if (p.status === "setup")
    return (
      <View>
        <Text style={[styles.small, theme.subtitle]}>{t.walletASetupHint}</Text>
        <PrimaryButton
          theme={theme}
          disabled={p.busy}
          title={t.walletASetup}
          onPress={() =>
            void bridge
              .openPaymentSetup(wallet.merchant_identifier)
              .then(() => walletStatus(bridge, wallet))
              .then(p.onStatus, () => undefined)
          }
        />
      </View>
    );
  return (
    <PrimaryButton
      theme={theme}
      disabled={p.busy}
      title={t.walletA}
      onPress={async () => {
        p.setBusy(true);
        try {
          const token = await bridge.requestPaymentToken({
            merchantIdentifier: wallet.merchant_identifier,
            currencyCode: p.details.currency_code,
            amount: p.details.amount,
            label: p.details.order_no ?? p.merchantId,
          });
          if (token === null) return p.setBusy(false);
          let answer: PaymentAnswer;
          try {
            answer = await startPayment(p.api, p.details.session_id, {
              form_of_payment: "wallet_a_pay",
              pg_code: wallet.pg_code,
              payment_token: token,
            });
          } catch (e) {
            await Promise.resolve(bridge.completePayment?.(false)).catch(() => undefined);
            throw e;
          }
          // The sheet closes with the service's answer, then the view shows it.
          await Promise.resolve(bridge.completePayment?.(answer.status === "success")).catch(() => undefined);
          p.settle(answer);
        } catch (e) {
          p.fail("wallet_a_pay", e);
        }
      }}
    />
  );
}

function PrimaryButton(p: {
  theme: ResolvedTheme;
  title: string;
  disabled?: boolean;
  onPress(): void;
}): ReactElement {
  const look = p.theme.button(!p.disabled);
  return (
    <Pressable
      accessibilityRole="button"
      accessibilityState={{ disabled: Boolean(p.disabled) }}
      disabled={p.disabled}
      onPress={p.onPress}
      style={[styles.button, look.box]}
    >
      <Text style={[styles.buttonText, look.text]}>{p.title}</Text>
    </Pressable>
  );
}

function Shell(p: {
  theme: ResolvedTheme;
  language: Language;
  minified?: boolean;
  children: React.ReactNode;
}): ReactElement {
  return (
    <View
      testID="svc-checkout"
      // Arabic lays the view out right to left; amounts and numbers stay left to right (isolates, ltr inputs).
      style={[p.theme.root, { direction: p.language === "ar" ? "rtl" : "ltr" }]}
      // react-native-web's: the element's language (for screen readers) and data-* attributes
      // (layout, theme) for the host page; native views ignore them.
      {...({
        lang: p.language,
        dataSet: { layout: p.minified ? "minified" : "list", theme: p.theme.appearance },
      } as object)}
    >
      {p.children}
    </View>
  );
}

const styles = {
  h1: { fontSize: 20, fontWeight: "700", marginBottom: 8 },
  h2: { fontSize: 16, fontWeight: "600", marginVertical: 8 },
  body: { fontSize: 16, lineHeight: 22 },
  small: { fontSize: 14, lineHeight: 20, marginTop: 4 },
  label: { fontSize: 14, fontWeight: "600", marginBottom: 4 },
  ltr: { writingDirection: "ltr" },
  ltrInput: { writingDirection: "ltr", textAlign: "left" },
  details: { marginBottom: 12 },
  banner: { padding: 12, marginBottom: 12, borderRadius: 8, borderWidth: 1 },
  option: { borderWidth: 1, borderRadius: 8, marginBottom: 8 },
  optionHead: { padding: 12, minHeight: 48, flexDirection: "row", alignItems: "center", gap: 12 },
  optionText: { flex: 1 },
  radio: {
    width: 20,
    height: 20,
    borderRadius: 10,
    borderWidth: 2,
    alignItems: "center",
    justifyContent: "center",
  },
  radioDot: { width: 10, height: 10, borderRadius: 5 },
  flow: { paddingHorizontal: 12, paddingBottom: 12 },
  input: { borderWidth: 1, borderRadius: 6, padding: 10, fontSize: 16, minHeight: 44 },
  button: {
    borderRadius: 8,
    paddingVertical: 12,
    paddingHorizontal: 16,
    alignItems: "center",
    marginTop: 12,
    minHeight: 44,
  },
  buttonText: { fontSize: 16, fontWeight: "600" },
} as const;
