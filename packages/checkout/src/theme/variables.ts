/**
 * Turns a CheckoutTheme into CSS custom properties on one `:host` rule, for the appearance
 * chosen at init. Values go into a stylesheet, never into a `style` attribute.
 */
import {
  type Appearance,
  type ButtonComponent,
  type CheckoutTheme,
  colorFor as color,
  type LabelComponent,
} from "@svc/checkout-core";

export type { Appearance };

// A value may not close the declaration or the rule it is placed in.
const UNSAFE = /[;{}<>\\]|\/\*/;

/** `name → value` pairs (without the `--svc-` prefix) for the set properties. */
export function themeVariables(theme: CheckoutTheme | undefined, mode: Appearance): Record<string, string> {
  const out: Record<string, string | undefined> = {};
  if (!theme) return {};
  const label = (key: string, l: LabelComponent | undefined) => {
    out[`${key}-color`] = color(l?.color, mode);
    out[`${key}-font`] = l?.fontFamily;
  };
  const button = (key: string, b: ButtonComponent | undefined) => {
    out[`${key}-fg`] = color(b?.enabledTitleColor, mode);
    out[`${key}-fg-disabled`] = color(b?.disabledTitleColor, mode);
    out[`${key}-bg`] = color(b?.enabledBackgroundColor, mode);
    out[`${key}-bg-disabled`] = color(b?.disabledBackgroundColor, mode);
    out[`${key}-font`] = b?.fontFamily;
  };
  out.bg = color(theme.backgroundColor, mode);
  out["modal-bg"] = color(theme.backgroundColorModal, mode);
  for (const side of ["top", "left", "bottom", "right"] as const) {
    const inset = theme.margins?.[side];
    out[`margin-${side}`] = typeof inset === "number" && Number.isFinite(inset) ? `${inset}px` : undefined;
  }
  label("main-title", theme.mainTitle);
  label("title", theme.title);
  label("subtitle", theme.subtitle);
  button("button", theme.button);
  button("selector", theme.selectorButton);
  out.icon = color(theme.iconColor, mode);
  label("input-label", theme.inputTextField?.label);
  label("input", theme.inputTextField?.text);
  out["input-bg"] = color(theme.inputTextField?.backgroundColor, mode);
  out.switch = color(theme.switchOnTintColor, mode);
  label("error", theme.errorMessage);
  label("fees-title", theme.feesTitle);
  label("fees-subtitle", theme.feesSubtitle);
  label("data-label", theme.dataLabel);
  label("data-value", theme.dataValue);
  const set: Record<string, string> = {};
  for (const [key, value] of Object.entries(out)) {
    if (value === undefined || value === "") continue;
    if (UNSAFE.test(value)) throw new TypeError(`theme value "${value}" is not a plain CSS value`);
    set[key] = value;
  }
  return set;
}

/** The `:host{…}` rule with the variables. */
export function themeRule(theme: CheckoutTheme | undefined, mode: Appearance): string {
  const vars = themeVariables(theme, mode);
  return `:host{${Object.entries(vars)
    .map(([k, v]) => `--svc-${k}:${v}`)
    .join(";")}}`;
}
