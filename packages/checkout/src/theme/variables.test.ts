import { describe, expect, it } from "vitest";
import { ButtonComponent, CheckoutTheme, LabelComponent, TextFieldComponent } from "@svc/checkout-core";
import { themeRule, themeVariables } from "./variables.js";

describe("themeVariables", () => {
  const theme = new CheckoutTheme({
    backgroundColor: { light: "#fff", dark: "#000" },
    margins: { top: 4, left: 0 },
    button: new ButtonComponent({ enabledBackgroundColor: "green", fontFamily: "Verdana" }),
    inputTextField: new TextFieldComponent({ label: new LabelComponent({ color: "red" }) }),
  });

  it("picks the colour of the appearance and leaves unset properties out", () => {
    expect(themeVariables(theme, "light")).toEqual({
      bg: "#fff",
      "margin-top": "4px",
      "margin-left": "0px",
      "button-bg": "green",
      "button-font": "Verdana",
      "input-label-color": "red",
    });
    expect(themeVariables(theme, "dark").bg).toBe("#000");
    expect(themeVariables(undefined, "dark")).toEqual({});
  });

  it("writes one :host rule", () => {
    expect(themeRule(new CheckoutTheme({ iconColor: "blue" }), "light")).toBe(":host{--svc-icon:blue}");
  });

  it("refuses values that would escape the declaration", () => {
    expect(() => themeVariables(new CheckoutTheme({ backgroundColor: "red;}body{x:y" }), "light")).toThrow(
      "not a plain CSS value",
    );
  });
});
