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

/**
 * Colour and font of a text.
 * @example
 * new LabelComponent({ color: { light: "#222", dark: "#eee" }, fontFamily: "Georgia, serif" })
 */
export class LabelComponent {
  color?: ThemeColor;
  fontFamily?: string;
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
  enabledTitleColor?: ThemeColor;
  disabledTitleColor?: ThemeColor;
  fontFamily?: string;
  enabledBackgroundColor?: ThemeColor;
  disabledBackgroundColor?: ThemeColor;
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
  label?: LabelComponent;
  text?: LabelComponent;
  backgroundColor?: ThemeColor;
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
  backgroundColor?: ThemeColor;
  backgroundColorModal?: ThemeColor;
  margins?: ThemeMargins;
  mainTitle?: LabelComponent;
  title?: LabelComponent;
  subtitle?: LabelComponent;
  button?: ButtonComponent;
  selectorButton?: ButtonComponent;
  iconColor?: ThemeColor;
  inputTextField?: TextFieldComponent;
  switchOnTintColor?: ThemeColor;
  errorMessage?: LabelComponent;
  // Fees
  feesTitle?: LabelComponent;
  feesSubtitle?: LabelComponent;
  // Data
  dataLabel?: LabelComponent;
  dataValue?: LabelComponent;
  // Other
  /** Show the amount and order number above the options (default true). */
  showPaymentDetails?: boolean;
  constructor(init: Partial<CheckoutTheme> = {}) {
    Object.assign(this, init);
  }
}
