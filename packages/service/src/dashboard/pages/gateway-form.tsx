/** @jsxImportSource preact */
/**
 * The gateway setting form (add and edit) and what its POST means: a plain HTML form whose parts
 * are per kind (KNET, Stripe, svc's test gateways), each with field names of its own so that
 * without JavaScript every part can be shown and only the chosen kind's is read. The dashboard's
 * script shows only the chosen part. Credential inputs are never filled in: not from the saved
 * setting (write-only), not from what was typed before a refusal.
 */
import type { GatewayKind } from "@svc/protocol";
import { AppError } from "../../http/problem.js";
import type { ComponentChildren, VNode } from "../../pages/jsx.js";
import {
  GATEWAY_HOSTS,
  type GatewaySettingInput,
  type GatewaySettingUpdate,
  type GatewaySettingView,
} from "../../gateways/settings.service.js";
import { type DashboardLanguage, format, messages } from "../i18n.js";
import { ErrorSummary, Field, PostForm, RadioGroup, SelectField } from "../ui.js";
import {
  CREDENTIAL_INPUTS,
  type CredentialName,
  FIELD_LABELS_EN,
  GATEWAY_WORDS,
  type GatewayWords,
  isRealKind,
  KIND_NAMES,
  KIND_ORDER,
  type RealKind,
} from "./gateway-words.js";

export const GATEWAYS_BASE = "/dashboard/gateways";

/** The form's part for a kind: KNET's, Stripe's, or the one of svc's test gateways. */
export type Part = RealKind | "sandbox";
export const partOf = (kind: string): Part => (isRealKind(kind) ? kind : "sandbox");

/** Every credential input's name (`knet_resource_key`…): never echoed into a page. */
export const CREDENTIAL_FIELD_NAMES: ReadonlySet<string> = new Set(
  Object.entries(CREDENTIAL_INPUTS).flatMap(([kind, fields]) => fields.map((f) => `${kind}_${f.name}`)),
);

/** The form's values without anything typed into a credential input. */
export function withoutCredentials(form: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(form).filter(([k]) => !CREDENTIAL_FIELD_NAMES.has(k)));
}

/** What the form shows besides the setting: values kept after a refusal, errors per field. */
export interface FormState {
  /** The submitted non-credential fields (re-shown after a refusal). */
  values?: Record<string, string> | undefined;
  /** Field name → message. */
  errors?: Record<string, string> | undefined;
  /** The errors are the gateway settings service's English. */
  english?: boolean | undefined;
  /** The service could not seal credentials: it has no secrets key (503). */
  noKey?: boolean | undefined;
}

const CURRENCY = /^[A-Z]{3}$/;

function currenciesOf(text: string | undefined): string[] | undefined {
  const list = (text ?? "")
    .split(/[\s,]+/)
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  return list.length > 0 && list.every((c) => CURRENCY.test(c)) ? [...new Set(list)] : undefined;
}

const operationOf = (value: string | undefined): "purchase" | "authorize" =>
  value === "authorize" ? "authorize" : "purchase";

/** The credentials typed into `kind`'s inputs; an empty input is left out (on an edit: kept). */
function credentialsOf(kind: RealKind, form: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of CREDENTIAL_INPUTS[kind]) {
    const value = form[`${kind}_${f.name}`] ?? "";
    if (value !== "") out[f.name] = value;
  }
  return out;
}

/** Where a real gateway's calls go: the Advanced host if given, else KNET's environment. */
function hostOf(kind: RealKind, form: Record<string, string>) {
  const host = (form[`${kind}_api_base_url`] ?? "").trim();
  if (host) return { api_base_url: host };
  if (kind === "knet")
    return { environment: form.knet_environment === "test" ? ("test" as const) : ("production" as const) };
  return {};
}

/** The form's own checks, in the page's words: the kind and the currencies. */
function localErrors(kind: string, form: Record<string, string>, w: GatewayWords): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!(KIND_ORDER as string[]).includes(kind)) errors.kind = w.err_kind;
  else if (kind !== "knet" && !currenciesOf(form[`${partOf(kind)}_currencies`]))
    errors[`${partOf(kind)}_currencies`] = w.err_currencies;
  return errors;
}

/** The add form as the service's input, or the form's own refusals. */
export function createInputOf(
  form: Record<string, string>,
  w: GatewayWords,
): { input: GatewaySettingInput } | { errors: Record<string, string> } {
  const kind = form.kind ?? "";
  const errors = localErrors(kind, form, w);
  if (Object.keys(errors).length > 0) return { errors };
  const name = (form.name ?? "").trim();
  const base = { pg_code: (form.pg_code ?? "").trim(), kind, ...(name ? { name } : {}) };
  if (kind === "knet")
    return {
      input: {
        ...base,
        currencies: ["KWD"],
        operation: "purchase",
        credentials: credentialsOf("knet", form),
        ...hostOf("knet", form),
      },
    };
  const part = partOf(kind);
  const common = {
    ...base,
    currencies: currenciesOf(form[`${part}_currencies`])!,
    operation: operationOf(form[`${part}_operation`]),
  };
  if (part === "stripe")
    return { input: { ...common, credentials: credentialsOf("stripe", form), ...hostOf("stripe", form) } };
  return { input: common };
}

/** The edit form as the service's update: credentials only those typed in (the rest are kept). */
export function updateInputOf(
  setting: GatewaySettingView,
  form: Record<string, string>,
  w: GatewayWords,
): { input: GatewaySettingUpdate } | { errors: Record<string, string> } {
  const errors = localErrors(setting.kind, form, w);
  if (Object.keys(errors).length > 0) return { errors };
  const name = (form.name ?? "").trim() || setting.pg_code;
  const part = partOf(setting.kind);
  if (part === "knet") {
    const credentials = credentialsOf("knet", form);
    return {
      input: {
        name,
        ...(Object.keys(credentials).length ? { credentials } : {}),
        ...hostOf("knet", form),
      },
    };
  }
  const common = {
    name,
    currencies: currenciesOf(form[`${part}_currencies`])!,
    operation: operationOf(form[`${part}_operation`]),
  };
  if (part === "stripe") {
    const credentials = credentialsOf("stripe", form);
    const host = (form.stripe_api_base_url ?? "").trim();
    return {
      input: {
        ...common,
        ...(Object.keys(credentials).length ? { credentials } : {}),
        api_base_url: host || null,
      },
    };
  }
  return { input: common };
}

/**
 * The service's refusal as messages beside the fields: `credentials.resource_key` of a KNET
 * setting is the input `knet_resource_key`, `currencies` the chosen part's currencies, and so on.
 * The service's words are English; each is prefixed with the field's English name.
 */
export function serviceErrorsOf(error: AppError, kind: string): Record<string, string> {
  const part = partOf(kind);
  const fieldOf = (key: string): string => {
    if (key.startsWith("credentials.")) {
      const name = key.slice("credentials.".length);
      const known = isRealKind(kind) && CREDENTIAL_INPUTS[kind].some((f) => f.name === name);
      return known ? `${kind}_${name}` : "kind";
    }
    if (key === "pg_code" || key === "name" || key === "kind") return key;
    if (key === "environment") return "knet_environment";
    if (key === "api_base_url") return isRealKind(kind) ? `${kind}_api_base_url` : "kind";
    if ((key === "currencies" || key === "operation") && part !== "knet") return `${part}_${key}`;
    return "kind";
  };
  const out: Record<string, string> = {};
  for (const [key, list] of Object.entries(error.errors ?? {})) {
    const field = fieldOf(key);
    const text = `${FIELD_LABELS_EN[key] ?? key}: ${list.join("; ")}`;
    out[field] = out[field] ? `${out[field]} ${text}` : text;
  }
  if (Object.keys(out).length === 0) out.pg_code = error.message;
  return out;
}

function CredentialInputs({
  kind,
  setting,
  state,
  lang,
}: {
  kind: RealKind;
  setting: GatewaySettingView | undefined;
  state: FormState;
  lang: DashboardLanguage;
}): VNode {
  const w = GATEWAY_WORDS[lang];
  const e = state.errors ?? {};
  const errorLang = state.english && lang === "ar" ? ("en" as const) : undefined;
  const refused = state.noKey || Object.keys(e).length > 0;
  return (
    <>
      {refused && <p class="hint">{w.retype}</p>}
      {CREDENTIAL_INPUTS[kind].map((f) => {
        const saved = setting?.credentials?.[f.name];
        const savedText = saved
          ? saved === "set"
            ? w.saved_set
            : format(w.saved_hint, { hint: saved })
          : undefined;
        const hint = w[`${f.name}_hint` as `${CredentialName}_hint`];
        return (
          <Field
            name={`${kind}_${f.name}`}
            label={w[f.name]}
            type={f.secret ? "password" : "text"}
            // Write-only: never the saved value, never what was typed before a refusal.
            value=""
            hint={savedText ? `${savedText} ${hint}` : hint}
            error={e[`${kind}_${f.name}`]}
            errorLang={errorLang}
            input={{
              // "off" is ignored on password fields: "new-password" keeps the browser from filling
              // in the user's dashboard password (or offering saved ones) here.
              autocomplete: f.secret ? "new-password" : "off",
              autocapitalize: "off",
              spellcheck: "false",
              dir: "ltr",
              class: "wide",
            }}
          />
        );
      })}
    </>
  );
}

function Advanced({
  kind,
  value,
  error,
  errorLang,
  w,
}: {
  kind: RealKind;
  value: string;
  error: string | undefined;
  errorLang: "en" | undefined;
  w: GatewayWords;
}): VNode {
  return (
    <details class="advanced" open={Boolean(value || error)}>
      <summary>{w.advanced}</summary>
      <Field
        name={`${kind}_api_base_url`}
        label={w.api_base_url}
        type="url"
        value={value}
        hint={kind === "knet" ? w.api_base_url_hint_knet : w.api_base_url_hint_stripe}
        error={error}
        errorLang={errorLang}
        input={{ class: "wide", dir: "ltr", autocomplete: "off", spellcheck: "false" }}
      />
    </details>
  );
}

function CurrencyAndOperation({
  part,
  setting,
  state,
  lang,
}: {
  part: "stripe" | "sandbox";
  setting: GatewaySettingView | undefined;
  state: FormState;
  lang: DashboardLanguage;
}): VNode {
  const w = GATEWAY_WORDS[lang];
  const v = state.values;
  const e = state.errors ?? {};
  const errorLang = state.english && lang === "ar" ? ("en" as const) : undefined;
  return (
    <>
      <Field
        name={`${part}_currencies`}
        label={w.currencies_label}
        value={v?.[`${part}_currencies`] ?? setting?.currencies.join(", ") ?? ""}
        hint={w.currencies_hint}
        error={e[`${part}_currencies`]}
        errorLang={errorLang}
        input={{ dir: "ltr", autocomplete: "off", spellcheck: "false", autocapitalize: "characters" }}
      />
      <SelectField
        name={`${part}_operation`}
        label={w.operation}
        value={v?.[`${part}_operation`] ?? setting?.operation ?? "purchase"}
        options={[
          { value: "purchase", text: w.operation_purchase },
          { value: "authorize", text: w.operation_authorize },
        ]}
        error={e[`${part}_operation`]}
        errorLang={errorLang}
      />
    </>
  );
}

/** The setting's KNET environment as the form offers it: production, or KNET's test host. */
function knetEnvironmentOf(setting: GatewaySettingView | undefined): "production" | "test" {
  return setting?.api_base_url === GATEWAY_HOSTS.knet.test ? "test" : "production";
}

/** The API host the Advanced field shows: a stand-in's; not the one KNET's environment sets. */
function advancedHostOf(setting: GatewaySettingView | undefined): string {
  const url = setting?.api_base_url;
  return url && url !== GATEWAY_HOSTS.knet.test ? url : "";
}

function PartFields({
  part,
  setting,
  state,
  lang,
}: {
  part: Part;
  setting: GatewaySettingView | undefined;
  state: FormState;
  lang: DashboardLanguage;
}): VNode {
  const w = GATEWAY_WORDS[lang];
  const v = state.values;
  const e = state.errors ?? {};
  const errorLang = state.english && lang === "ar" ? ("en" as const) : undefined;
  if (part === "sandbox")
    return <CurrencyAndOperation part="sandbox" setting={setting} state={state} lang={lang} />;
  const host = v?.[`${part}_api_base_url`] ?? advancedHostOf(setting);
  const advanced = (
    <Advanced kind={part} value={host} error={e[`${part}_api_base_url`]} errorLang={errorLang} w={w} />
  );
  if (part === "stripe")
    return (
      <>
        <CredentialInputs kind="stripe" setting={setting} state={state} lang={lang} />
        <CurrencyAndOperation part="stripe" setting={setting} state={state} lang={lang} />
        {advanced}
      </>
    );
  return (
    <>
      <p class="hint">{w.knet_rules}</p>
      <CredentialInputs kind="knet" setting={setting} state={state} lang={lang} />
      <RadioGroup
        name="knet_environment"
        legend={w.environment}
        value={v?.knet_environment ?? knetEnvironmentOf(setting)}
        options={[
          { value: "production", text: w.env_production },
          { value: "test", text: w.env_test },
        ]}
        error={e.knet_environment}
        errorLang={errorLang}
      />
      {advanced}
    </>
  );
}

const PART_KINDS: Record<Part, GatewayKind[]> = {
  knet: ["knet"],
  stripe: ["stripe"],
  sandbox: ["sandbox", "sandbox-queued", "ndebit"],
};

/**
 * The add form (no `setting`: every kind's part, the script shows the chosen one) or the edit
 * form of `setting` (its kind's part only; code and kind are fixed).
 */
export function GatewayForm({
  setting,
  state,
  lang,
  csrf,
  children,
}: {
  setting?: GatewaySettingView | undefined;
  state: FormState;
  lang: DashboardLanguage;
  csrf: string | undefined;
  /** What comes between the error summary and the form (a way back, the setting's facts). */
  children?: ComponentChildren;
}): VNode {
  const w = GATEWAY_WORDS[lang];
  const v = state.values;
  const e = state.errors ?? {};
  const errorLang = state.english && lang === "ar" ? ("en" as const) : undefined;
  const kind = v?.kind ?? setting?.kind ?? "knet";
  const parts: Part[] = setting ? [partOf(setting.kind)] : ["knet", "stripe", "sandbox"];
  return (
    <>
      {state.noKey ? (
        <ErrorSummary heading={w.no_key_title} messages={[w.no_key]} />
      ) : (
        <ErrorSummary
          heading={messages(lang).there_is_a_problem}
          messages={Object.values(e)}
          messagesLang={errorLang}
        />
      )}
      {children}
      <PostForm
        action={setting ? `${GATEWAYS_BASE}/${encodeURIComponent(setting.pg_code)}` : GATEWAYS_BASE}
        csrf={csrf}
        class="gateway-form"
      >
        <Field
          name="name"
          label={w.name}
          value={v?.name ?? setting?.name ?? ""}
          hint={w.name_hint}
          error={e.name}
          errorLang={errorLang}
          input={{ class: "wide", maxlength: "100", autocomplete: "off" }}
        />
        {!setting && (
          <>
            <Field
              name="pg_code"
              label={w.pg_code}
              value={v?.pg_code ?? ""}
              hint={w.pg_code_hint}
              error={e.pg_code}
              errorLang={errorLang}
              input={{
                required: true,
                maxlength: "64",
                dir: "ltr",
                autocomplete: "off",
                autocapitalize: "off",
                spellcheck: "false",
              }}
            />
            <SelectField
              name="kind"
              label={w.kind_label}
              value={kind}
              hint={w.kind_hint}
              options={KIND_ORDER.map((k) => ({ value: k, text: KIND_NAMES[lang][k] }))}
              error={e.kind}
              errorLang={errorLang}
              select={{ "data-kind-select": true }}
            />
          </>
        )}
        {parts.map((part) => (
          <fieldset data-kinds={PART_KINDS[part].join(" ")}>
            <legend>
              {setting
                ? KIND_NAMES[lang][setting.kind]
                : part === "knet"
                  ? w.part_knet
                  : part === "stripe"
                    ? w.part_stripe
                    : w.part_sandbox}
            </legend>
            <PartFields part={part} setting={setting} state={state} lang={lang} />
          </fieldset>
        ))}
        <button type="submit">{setting ? w.save : w.create}</button>
      </PostForm>
    </>
  );
}
