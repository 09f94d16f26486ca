/** @jsxImportSource preact */
/**
 * The hosted card page, server-rendered from components: works without JavaScript, in the
 * transaction's language (Arabic right-to-left, card digits left-to-right), with labelled fields,
 * one specific message per mistake and an error summary whose items link to their fields. A small
 * script, allowed by the response's CSP nonce, only enhances: grouping, the card brand, checks on
 * blur. Every value is escaped by the renderer; the only code written unescaped is the page's own
 * stylesheet and script (constants) and its data block (JSON with `<` escaped), pages/jsx.tsx.
 */
import type { Language } from "@svc/protocol";
import {
  type ComponentChildren,
  InlineScript,
  InlineStyle,
  JsonData,
  renderDocument,
  renderFragment,
  type VNode,
} from "../pages/jsx.js";
import { PAGE_CSS } from "../pages/page-style.js";
import {
  type CardBrand,
  type CardErrors,
  type CardField,
  brandOf,
  cardDigits,
  clientRules,
} from "./card-input.js";
import { CARD_PAGE_JS } from "./card-page.client.js";
import { type TextKey, t } from "./i18n.js";

function Page(o: {
  language: Language;
  title: string;
  nonce: string;
  children: ComponentChildren;
  tail?: VNode | undefined;
}): VNode {
  return (
    <html lang={o.language} dir={o.language === "ar" ? "rtl" : "ltr"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{o.title}</title>
        <InlineStyle css={PAGE_CSS} nonce={o.nonce} />
      </head>
      <body>
        <main>{o.children}</main>
        {o.tail}
      </body>
    </html>
  );
}

const FRAME = { x: ".5", y: ".5", width: "39", height: "23", rx: "3" };
const WORD = { "text-anchor": "middle", "font-family": "Arial,Helvetica,sans-serif", "font-weight": "700" };

/** The brand marks: drawn inline (no requests), hidden from screen readers, which read the name instead. */
const MARKS: Record<CardBrand, () => VNode> = {
  card: () => (
    <>
      <rect x="4.5" y="2.5" width="31" height="19" rx="3" fill="none" stroke="currentColor" />
      <rect x="4" y="7" width="32" height="3.5" fill="currentColor" />
    </>
  ),
  visa: () => (
    <>
      <rect {...FRAME} fill="#fff" stroke="#8a939e" />
      <text x="20" y="16.5" {...WORD} font-size="11" font-style="italic" fill="#1a1f71">
        VISA
      </text>
    </>
  ),
  mastercard: () => (
    <>
      <rect {...FRAME} fill="#fff" stroke="#8a939e" />
      <circle cx="16" cy="12" r="7" fill="#eb001b" />
      <circle cx="24" cy="12" r="7" fill="#f79e1b" fill-opacity=".85" />
    </>
  ),
  amex: () => (
    <>
      <rect {...FRAME} fill="#2e77bc" stroke="#2e77bc" />
      <text x="20" y="15.5" {...WORD} font-size="9" fill="#fff">
        AMEX
      </text>
    </>
  ),
  mada: () => (
    <>
      <rect {...FRAME} fill="#fff" stroke="#8a939e" />
      <text x="20" y="16" {...WORD} font-size="11" fill="#004b87">
        mada
      </text>
    </>
  ),
};

function BrandMark({ language, brand }: { language: Language; brand: CardBrand }): VNode {
  const Mark = MARKS[brand];
  return (
    <>
      <svg viewBox="0 0 40 24" width="40" height="24" aria-hidden="true" focusable="false">
        <Mark />
      </svg>
      {brand !== "card" && <span class="vh">{t(language, `brand_${brand}`)}</span>}
    </>
  );
}

/** Keys the script needs, in the page's language: the same texts the server shows. */
const SCRIPT_TEXTS = [
  "error_summary",
  "error_prefix",
  "err_number_required",
  "err_number_digits",
  "err_number_short",
  "err_number_long",
  "err_number_luhn",
  "err_expiry_required",
  "err_expiry_format",
  "err_expiry_month",
  "err_expiry_past",
  "err_cvc",
  "err_cvc_amex",
  "err_holder",
] as const satisfies readonly TextKey[];

export interface CardFormView {
  language: Language;
  /** Set when `?lang=` chose the language: carried through the form posts. */
  langOverride: Language | undefined;
  nonce: string;
  sessionId: string;
  merchantName: string;
  amount: string;
  currency: string;
  orderNo: string | null;
  gateways: { pg_code: string; name: string }[];
  selectedPgCode: string | undefined;
  canSaveCard: boolean;
  /** Whether canceling returns to the shop (the transaction has a redirect_url). */
  returnsToShop: boolean;
  values: Record<string, string>;
  errors: CardErrors & { pg_code?: TextKey };
}

/** A label wraps before its "(…)", never inside it (a half column at 320 px is narrow). */
function LabelText({ text }: { text: string }): VNode {
  const m = / (\([^)]*\))$/.exec(text);
  if (!m) return <>{text}</>;
  return (
    <>
      {text.slice(0, m.index)} <span class="nowrap">{m[1]}</span>
    </>
  );
}

function Field(o: {
  v: CardFormView;
  name: CardField;
  label: TextKey;
  hint?: TextKey;
  input: Record<string, string | boolean>;
}): VNode {
  const { v, name } = o;
  const error = v.errors[name];
  const described = [o.hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  const input = (
    <input
      type="text"
      id={name}
      name={name}
      value={v.values[name] ?? ""}
      {...o.input}
      aria-describedby={described || undefined}
      aria-invalid={error ? "true" : undefined}
    />
  );
  return (
    <div>
      <label for={name}>
        <LabelText text={t(v.language, o.label)} />
      </label>
      {o.hint && (
        <p class="hint" id={`${name}-hint`}>
          {t(v.language, o.hint)}
        </p>
      )}
      {name === "number" ? (
        <div class="card-number">
          {input}
          <span class="brand" id="number-brand" aria-live="polite">
            <BrandMark language={v.language} brand={brandOf(cardDigits(v.values.number ?? ""))} />
          </span>
        </div>
      ) : (
        input
      )}
      <p class="field-error" id={`${name}-error`} aria-live="polite">
        {error ? t(v.language, error) : ""}
      </p>
    </div>
  );
}

function LangField({ v }: { v: { langOverride: Language | undefined } }): VNode | null {
  return v.langOverride ? <input type="hidden" name="lang" value={v.langOverride} /> : null;
}

const Money = ({ v }: { v: CardFormView }) => (
  <span dir="ltr">
    {v.amount} {v.currency}
  </span>
);

function ErrorSummary({ v }: { v: CardFormView }): VNode | null {
  const entries = Object.entries(v.errors) as [CardField | "pg_code", TextKey][];
  if (entries.length === 0) return null;
  // Without JavaScript the summary is first in the form, an alert, and takes focus (autofocus).
  // A payment that could not be made is not the customer's mistake to correct.
  const notMade = entries.length === 1 && entries[0]![1] === "err_payment_failed";
  return (
    <div class="errors" role="alert" tabindex={-1} id="error-summary" autofocus>
      <h2>{t(v.language, notMade ? "payment_not_made" : "error_summary")}</h2>
      <ul>
        {entries.map(([name, key]) => (
          <li>
            <a href={`#${name === "pg_code" ? "pg-0" : name}`}>{t(v.language, key)}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function GatewayPicker({ v }: { v: CardFormView }): VNode {
  if (v.gateways.length === 1) return <input type="hidden" name="pg_code" value={v.gateways[0]!.pg_code} />;
  const selected = v.selectedPgCode ?? v.gateways[0]?.pg_code;
  return (
    <fieldset>
      <legend>{t(v.language, "gateway")}</legend>
      {v.gateways.map((g, i) => (
        <div class="check">
          <input
            type="radio"
            id={`pg-${i}`}
            name="pg_code"
            value={g.pg_code}
            checked={selected === g.pg_code}
          />
          <label for={`pg-${i}`}>{g.name}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** A field of digits: numeric keyboard, left to right in either language, required. */
const digits = (autocomplete: string, more: Record<string, string>) => ({
  inputmode: "numeric",
  autocomplete,
  dir: "ltr",
  ...more,
  required: true,
});

export function cardFormPage(v: CardFormView): string {
  const L = v.language;
  const data = {
    title: t(L, "page_title"),
    messages: Object.fromEntries(SCRIPT_TEXTS.map((k) => [k, t(L, k)])),
    rules: clientRules(),
    marks: Object.fromEntries(
      (Object.keys(MARKS) as CardBrand[]).map((brand) => [
        brand,
        renderFragment(<BrandMark language={L} brand={brand} />),
      ]),
    ),
  };
  const hasErrors = Object.keys(v.errors).length > 0;
  const title = hasErrors ? `${t(L, "error_prefix")}: ${t(L, "page_title")}` : t(L, "page_title");
  return renderDocument(
    <Page
      language={L}
      title={title}
      nonce={v.nonce}
      tail={
        <>
          <JsonData id="card-page-data" value={data} />
          <InlineScript code={CARD_PAGE_JS} nonce={v.nonce} />
        </>
      }
    >
      {v.merchantName && (
        <p class="overline">
          {t(L, "pay_to")} <strong>{v.merchantName}</strong>
        </p>
      )}
      <h1>{t(L, "page_title")}</h1>
      <PaymentFacts
        language={L}
        label="amount_due"
        amount={v.amount}
        currency={v.currency}
        orderNo={v.orderNo}
      />
      <form method="post" action={`/pay/${v.sessionId}`} id="card-form" novalidate>
        <ErrorSummary v={v} />
        <LangField v={v} />
        <GatewayPicker v={v} />
        <Field
          v={v}
          name="number"
          label="card_number"
          hint="card_number_hint"
          input={digits("cc-number", { maxlength: "23", spellcheck: "false" })}
        />
        <div class="row">
          <Field
            v={v}
            name="expiry"
            label="expiry"
            input={digits("cc-exp", { maxlength: "7", placeholder: "MM/YY" })}
          />
          <Field v={v} name="cvc" label="cvc" input={digits("cc-csc", { maxlength: "4" })} />
        </div>
        <Field
          v={v}
          name="holder"
          label="holder"
          input={{ autocomplete: "cc-name", maxlength: "100", spellcheck: "false" }}
        />
        {v.canSaveCard && (
          <div class="check">
            <input
              type="checkbox"
              id="save_card"
              name="save_card"
              value="1"
              checked={Boolean(v.values.save_card)}
            />
            <label for="save_card">{t(L, "save_card")}</label>
          </div>
        )}
        <button type="submit">
          {t(L, "pay")} <Money v={v} />
        </button>
      </form>
      <form method="post" action={`/pay/${v.sessionId}/cancel`}>
        <LangField v={v} />
        <input
          type="submit"
          class="secondary"
          value={t(L, v.returnsToShop ? "cancel_return" : "cancel_payment")}
        />
      </form>
    </Page>,
  );
}

/** How much and which order, as the card form and the state pages show it. */
function PaymentFacts(o: {
  language: Language;
  label: "amount_due" | "amount";
  amount: string;
  currency: string;
  orderNo: string | null;
}): VNode {
  return (
    <dl>
      <dt>{t(o.language, o.label)}</dt>
      <dd class="total">
        <span dir="ltr">
          {o.amount} {o.currency}
        </span>
      </dd>
      {o.orderNo && (
        <>
          <dt>{t(o.language, "order")}</dt>
          <dd>
            <span dir="ltr">{o.orderNo}</span>
          </dd>
        </>
      )}
    </dl>
  );
}

/** What a transaction's state page repeats of it: whom, how much, which order. */
export interface PaymentSummary {
  merchantName: string;
  amount: string;
  currency: string;
  orderNo: string | null;
}

export function messagePage(
  language: Language,
  nonce: string,
  title: TextKey,
  body: TextKey,
  link?: { href: string; text: TextKey },
  summary?: PaymentSummary,
): string {
  return renderDocument(
    <Page language={language} title={t(language, title)} nonce={nonce}>
      {summary?.merchantName && (
        <p class="overline">
          <strong>{summary.merchantName}</strong>
        </p>
      )}
      <h1>{t(language, title)}</h1>
      <p>{t(language, body)}</p>
      {summary && (
        <PaymentFacts
          language={language}
          label="amount"
          amount={summary.amount}
          currency={summary.currency}
          orderNo={summary.orderNo}
        />
      )}
      {link && (
        <a class="button" href={link.href}>
          {t(language, link.text)}
        </a>
      )}
    </Page>,
  );
}
