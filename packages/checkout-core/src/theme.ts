/**
 * The theme classes of the seed: CheckoutTheme with ButtonComponent, LabelComponent and
 * TextFieldComponent. Every property is optional; a colour is one value or `{light, dark}`.
 */

/** A CSS colour, or one per appearance. */
export type ThemeColor = string | { light: string; dark: string };

/** The device's appearance, read once at init. */
export type Appearance = "light" | "dark";

/** A theme colour for one appearance (undefined when the theme leaves it to the default design). */
export function colorFor(color: ThemeColor | undefined, appearance: Appearance): string | undefined {
  return color === undefined ? undefined : typeof color === "string" ? color : color[appearance];
}

// The properties are `declare`d: set by Object.assign from `init` only, so no field code is
// emitted (none is needed, and the browser script counts its bytes).

/**
 * Colour and font of a text.
 * @example
 * new LabelComponent({ color: { light: "#222", dark: "#eee" }, fontFamily: "Georgia, serif" })
 */
export class LabelComponent {
  declare color?: ThemeColor;
  declare fontFamily?: string;
  constructor(init: Partial<LabelComponent> = {}) {
    Object.assign(this, init);
  }
}

/**
 * A button's title and background, enabled and disabled.
 * @example
 * new ButtonComponent({ enabledBackgroundColor: "#0a7d38", enabledTitleColor: "#fff" })
 */
export class ButtonComponent {
  declare enabledTitleColor?: ThemeColor;
  declare disabledTitleColor?: ThemeColor;
  declare fontFamily?: string;
  declare enabledBackgroundColor?: ThemeColor;
  declare disabledBackgroundColor?: ThemeColor;
  constructor(init: Partial<ButtonComponent> = {}) {
    Object.assign(this, init);
  }
}

/**
 * A text field: its label, its text and its background.
 * @example
 * new TextFieldComponent({ backgroundColor: { light: "#fafafa", dark: "#1e1e1e" } })
 */
export class TextFieldComponent {
  declare label?: LabelComponent;
  declare text?: LabelComponent;
  declare backgroundColor?: ThemeColor;
  constructor(init: Partial<TextFieldComponent> = {}) {
    Object.assign(this, init);
  }
}

/** Insets of the view in CSS pixels. */
export interface ThemeMargins {
  top?: number;
  left?: number;
  bottom?: number;
  right?: number;
}

/**
 * The whole theme (groups General, Fees, Data, Other of the seed).
 * @example
 * const theme = new CheckoutTheme({
 *   backgroundColor: { light: "#ffffff", dark: "#101418" },
 *   mainTitle: new LabelComponent({ color: "#0a7d38" }),
 *   button: new ButtonComponent({ enabledBackgroundColor: "#0a7d38", enabledTitleColor: "#ffffff" }),
 * });
 */
export class CheckoutTheme {
  // General
  declare backgroundColor?: ThemeColor;
  declare backgroundColorModal?: ThemeColor;
  declare margins?: ThemeMargins;
  declare mainTitle?: LabelComponent;
  declare title?: LabelComponent;
  declare subtitle?: LabelComponent;
  declare button?: ButtonComponent;
  declare selectorButton?: ButtonComponent;
  declare iconColor?: ThemeColor;
  declare inputTextField?: TextFieldComponent;
  declare switchOnTintColor?: ThemeColor;
  declare errorMessage?: LabelComponent;
  // Fees
  declare feesTitle?: LabelComponent;
  declare feesSubtitle?: LabelComponent;
  // Data
  declare dataLabel?: LabelComponent;
  declare dataValue?: LabelComponent;
  // Other
  /** Show the amount and order number above the options (default true). */
  declare showPaymentDetails?: boolean;
  constructor(init: Partial<CheckoutTheme> = {}) {
    Object.assign(this, init);
  }
}
