import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { currencyExponent, isCurrency } from "./currency.js";
import { parseDurationSeconds } from "./duration.js";
import { formatAmount, MAX_MINOR_UNITS, normaliseAmountInput, parseAmount } from "./money.js";

describe("money", () => {
  it("knows the ISO 4217 exponents that matter", () => {
    expect([
      currencyExponent("KWD"),
      currencyExponent("USD"),
      currencyExponent("JPY"),
      currencyExponent("BHD"),
    ]).toEqual([3, 2, 0, 3]);
    expect(isCurrency("XYZ")).toBe(false);
    expect(isCurrency("usd")).toBe(false);
  });

  it("parses exactly the currency's decimals", () => {
    expect(parseAmount("86.000", "KWD")).toEqual({ ok: true, minor: 86000 });
    expect(parseAmount("10.50", "USD")).toEqual({ ok: true, minor: 1050 });
    expect(parseAmount("500", "JPY")).toEqual({ ok: true, minor: 500 });
    for (const [v, c] of [
      ["86.00", "KWD"],
      ["10.5", "USD"],
      ["500.0", "JPY"],
      ["01.00", "USD"],
      [" 1.00", "USD"],
      ["1,00", "USD"],
    ]) {
      expect(parseAmount(v, c!).ok, `${v} ${c}`).toBe(false);
    }
    expect(parseAmount("0.000", "KWD")).toEqual({ ok: false, message: "must be greater than zero" });
    expect(parseAmount("99999999999999999.00", "USD").ok).toBe(false);
  });

  it("round-trips every amount in range through the wire format", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_MINOR_UNITS }),
        fc.constantFrom("KWD", "USD", "JPY"),
        (minor, currency) => {
          expect(parseAmount(formatAmount(minor, currency), currency)).toEqual({ ok: true, minor });
        },
      ),
    );
  });

  it("formats negatives and small amounts with leading zeros", () => {
    expect(formatAmount(5, "KWD")).toBe("0.005");
    expect(formatAmount(-1050, "USD")).toBe("-10.50");
    expect(formatAmount(0, "JPY")).toBe("0");
  });
});

describe("durations", () => {
  it("reads ISO 8601 and seconds", () => {
    expect(parseDurationSeconds("PT30M")).toBe(1800);
    expect(parseDurationSeconds("P1DT1H")).toBe(90000);
    expect(parseDurationSeconds(600)).toBe(600);
    expect(parseDurationSeconds("600")).toBe(600);
    for (const bad of ["P", "PT", "30m", "-5", 0, 1.5, null, "P1W"])
      expect(parseDurationSeconds(bad), String(bad)).toBeUndefined();
  });
});

describe("normaliseAmountInput", () => {
  it.each([
    ["12.5", "KWD", "12.500"],
    ["500", "KWD", "500.000"],
    [" 12.50 ", "USD", "12.50"],
    ["KWD 3.25", "KWD", "3.250"],
    ["007.1", "KWD", "7.100"],
    ["1200", "JPY", "1200"],
    ["12.", "KWD", "12.000"],
  ])("%s %s → %s", (text, currency, value) => {
    expect(normaliseAmountInput(text, currency)).toMatchObject({ ok: true, value });
  });
  it.each([
    ["", "KWD", "empty", "Enter an amount in KWD, such as 12.500."],
    ["12.5005", "KWD", "too_many_decimals", "KWD has 3 decimals: 12.5005 has 4."],
    ["1.5", "JPY", "no_decimals", "JPY has no decimals: enter a whole amount, such as 12500."],
    ["12,5", "KWD", "not_digits", "Enter the amount in digits, such as 12.500."],
    ["-3", "KWD", "not_digits", "Enter the amount in digits, such as 12.500."],
    ["0", "KWD", "zero", "Enter an amount greater than zero."],
  ])("%j %s is refused (%s): %s", (text, currency, problem, message) => {
    expect(normaliseAmountInput(text, currency)).toMatchObject({ ok: false, message, problem });
  });
});
