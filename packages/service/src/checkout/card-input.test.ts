import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  brandOf,
  checkCvc,
  checkHolder,
  checkNumber,
  luhnValid,
  parseCardForm,
  parseExpiry,
} from "./card-input.js";

const NOW = new Date("2026-11-24T12:00:00Z");

/** Appends the Luhn check digit to `body`. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
  throw new Error("unreachable");
}

describe("card number", () => {
  it.each([
    ["", "err_number_required"],
    ["   ", "err_number_required"],
    ["4242 4242 4242 424x", "err_number_digits"],
    ["4242.4242.4242.4242", "err_number_digits"],
    ["4242 4242 42", "err_number_short"],
    ["4242 4242 4242 4242 4242", "err_number_long"],
    ["4242 4242 4242 4241", "err_number_luhn"],
    ["4242 4242 4242 4242", undefined],
    ["4242-4242-4242-4242", undefined],
    ["378282246310005", undefined], // American Express, 15 digits
    ["3782 822463 10005", undefined],
    ["6011 0009 9013 9424", undefined], // 16 digits of another network
  ])("%j → %s", (input, expected) => {
    expect(checkNumber(input)).toBe(expected);
  });

  it("accepts every Luhn-valid number of 12 to 19 digits, however it is spaced", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{11,18}$/), fc.constantFrom("", " ", "-"), (body, separator) => {
        const number = withCheckDigit(body);
        const spaced = number.replace(/(\d{4})(?=\d)/g, `$1${separator}`);
        return checkNumber(spaced) === undefined;
      }),
    );
  });

  it("says 'typo' for any single changed digit of a valid number", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{15}$/),
        fc.nat(15),
        fc.integer({ min: 1, max: 9 }),
        (body, position, delta) => {
          const number = withCheckDigit(body);
          const changed = (Number(number[position]) + delta) % 10;
          const typo = number.slice(0, position) + changed + number.slice(position + 1);
          return checkNumber(typo) === "err_number_luhn";
        },
      ),
    );
  });

  it("says 'too short' or 'too long' by digit count, never 'typo'", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,11}$/), (digits) => checkNumber(digits) === "err_number_short"),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{20,30}$/), (digits) => checkNumber(digits) === "err_number_long"),
    );
  });

  it("knows the brand from the first digits", () => {
    expect(brandOf("4242424242424242")).toBe("visa");
    expect(brandOf("5555555555554444")).toBe("mastercard");
    expect(brandOf("2223003122003222")).toBe("mastercard");
    expect(brandOf("378282246310005")).toBe("amex");
    expect(brandOf("341111111111111")).toBe("amex");
    expect(brandOf("5888450000000000")).toBe("mada");
    expect(brandOf("9682010000000000")).toBe("mada");
    expect(brandOf("6011000990139424")).toBe("card");
    expect(brandOf("")).toBe("card");
  });
});

describe("expiry", () => {
  it.each([
    ["12/30", 12, 2030],
    ["1230", 12, 2030],
    ["12 / 30", 12, 2030],
    ["12-30", 12, 2030],
    ["12 30", 12, 2030],
    ["1/30", 1, 2030],
    ["01/2030", 1, 2030],
    ["012030", 1, 2030],
    [" 11/26 ", 11, 2026], // this month: valid through its last day
  ])("%j is month %i of %i", (input, month, year) => {
    expect(parseExpiry(input, NOW)).toEqual({ ok: true, month, year });
  });

  it.each([
    ["", "err_expiry_required"],
    ["  ", "err_expiry_required"],
    ["12/3", "err_expiry_format"],
    ["130", "err_expiry_format"],
    ["12.30", "err_expiry_format"],
    ["ab/cd", "err_expiry_format"],
    ["12/1999", "err_expiry_format"],
    ["13/30", "err_expiry_month"],
    ["00/30", "err_expiry_month"],
    ["10/26", "err_expiry_past"],
    ["1025", "err_expiry_past"],
    ["12/20", "err_expiry_past"],
  ])("%j → %s", (input, error) => {
    expect(parseExpiry(input, NOW)).toEqual({ ok: false, error });
  });

  it("MMYY, MM/YY, MM / YY and MM-YY read alike, and a month in the past is 'expired', never 'format'", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 99 }), (month, yy) => {
        const mm = String(month).padStart(2, "0");
        const y = String(yy).padStart(2, "0");
        const results = [`${mm}${y}`, `${mm}/${y}`, `${mm} / ${y}`, `${mm}-${y}`].map((s) =>
          parseExpiry(s, NOW),
        );
        const expired = Date.UTC(2000 + yy, month, 1) <= NOW.getTime();
        return results.every((r) =>
          expired
            ? !r.ok && r.error === "err_expiry_past"
            : r.ok && r.month === month && r.year === 2000 + yy,
        );
      }),
    );
  });
});

describe("security code", () => {
  it.each([
    ["123", "4242424242424242", undefined],
    ["", "4242424242424242", "err_cvc"],
    ["12", "4242424242424242", "err_cvc"],
    ["1234", "4242424242424242", "err_cvc"],
    ["12a", "4242424242424242", "err_cvc"],
    ["1234", "3782 822463 10005", undefined],
    ["123", "378282246310005", "err_cvc_amex"],
    ["123", "", undefined], // no number yet: 3 digits
  ])("%j with card %j → %s", (cvc, number, expected) => {
    expect(checkCvc(cvc, number)).toBe(expected);
  });
});

describe("name on card", () => {
  it("is optional and at most 100 characters", () => {
    expect(checkHolder("")).toBeUndefined();
    expect(checkHolder("a".repeat(100))).toBeUndefined();
    expect(checkHolder("a".repeat(101))).toBe("err_holder");
  });
});

describe("the whole form", () => {
  it("gives the card to the gateway in digits, with the month and four-digit year", () => {
    expect(
      parseCardForm({ number: "3782 822463 10005", expiry: "1230", cvc: "1234", holder: " Sara Ali " }, NOW),
    ).toEqual({
      ok: true,
      card: { number: "378282246310005", expiryMonth: 12, expiryYear: 2030, cvc: "1234", holder: "Sara Ali" },
    });
  });

  it("names every field's own mistake at once", () => {
    expect(
      parseCardForm(
        { number: "4242 4242 4242 4241", expiry: "10/26", cvc: "1", holder: "x".repeat(101) },
        NOW,
      ),
    ).toEqual({
      ok: false,
      errors: {
        number: "err_number_luhn",
        expiry: "err_expiry_past",
        cvc: "err_cvc",
        holder: "err_holder",
      },
    });
    expect(parseCardForm({}, NOW)).toEqual({
      ok: false,
      errors: { number: "err_number_required", expiry: "err_expiry_required", cvc: "err_cvc" },
    });
  });
});
