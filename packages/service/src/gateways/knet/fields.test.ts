import { describe, expect, it } from "vitest";
import { knetResponse } from "./response.js";
import {
  KNET_CURRENCY_KWD,
  KNET_LANG,
  KNET_PAYMENT_INIT_PATH,
  KNET_PRODUCTION_HOST,
  KNET_TEST_HOST,
  KNET_TRAN_PIPE_PATH,
  knetAmount,
  parseKnetPairs,
  paymentInitPlain,
  paymentPageUrl,
  plainValueProblem,
  trackIdProblem,
  UDF_FORBIDDEN_CHARACTERS,
  udfProblem,
} from "./fields.js";
import { encryptTrandata } from "./trandata.js";

/** Vector 1 of the spec's knet-vectors.json (computed by KNET's PHP kit), copied here. */
const VECTOR_PLAIN =
  "id=123401&password=123401pg&action=1&langid=USA&currencycode=414&amt=20.550&responseURL=https://svc.example/v1/gateways/knet/notifications&errorURL=https://svc.example/pay/sess_x/return&trackid=att01&udf1=&udf2=&udf3=&udf4=&udf5=";
const VECTOR_KEY = "1234567890123456";
const VECTOR_HEX_START = "48300266ae21d9cbdff595a0b6eb0942";

const VECTOR_FIELDS = {
  id: "123401",
  password: "123401pg",
  action: "1",
  langid: KNET_LANG.en,
  currencycode: KNET_CURRENCY_KWD,
  amt: knetAmount(20_550),
  responseURL: "https://svc.example/v1/gateways/knet/notifications",
  errorURL: "https://svc.example/pay/sess_x/return",
  trackid: "att01",
};

describe("KNET payment initialisation string", () => {
  it("writes the kit's field order, unencoded, exactly as vector 1", () => {
    const plain = paymentInitPlain({ ...VECTOR_FIELDS, udf1: "", udf2: "", udf3: "", udf4: "", udf5: "" });
    expect(plain).toBe(VECTOR_PLAIN);
    expect(paymentInitPlain(VECTOR_FIELDS)).toBe(VECTOR_PLAIN); // udfs default to empty
    expect(encryptTrandata(plain, VECTOR_KEY).startsWith(VECTOR_HEX_START)).toBe(true);
  });

  it("refuses a value KNET would misread, without repeating the value", () => {
    expect(() => paymentInitPlain({ ...VECTOR_FIELDS, password: "p&ss" })).toThrow(/KNET's password/);
    expect(() => paymentInitPlain({ ...VECTOR_FIELDS, password: "p&ss" })).not.toThrow(/p&ss/);
    expect(() => paymentInitPlain({ ...VECTOR_FIELDS, udf2: "a\nb" })).toThrow(/KNET's udf2/);
    expect(() => paymentInitPlain({ ...VECTOR_FIELDS, udf1: "a=b" })).not.toThrow();
  });

  it("plainValueProblem: refuses '&' and control characters (C0, DEL, C1), names what, never echoes the value", () => {
    for (const ok of ["123401pg", "Pw-k9!x2Q", "a=b c%d+e", "كلمة", "x@y/z"])
      expect(plainValueProblem(ok), ok).toBeUndefined();
    expect(plainValueProblem("sec&ret")).toMatch(/^cannot hold '&'/);
    expect(plainValueProblem("sec&ret")).not.toContain("sec");
    expect(plainValueProblem("a\tb")).toMatch(/control characters \(found U\+0009\)/);
    expect(plainValueProblem("a\rb")).toMatch(/U\+000D/);
    expect(plainValueProblem("a\u007fb")).toMatch(/U\+007F/);
    expect(plainValueProblem("a\u0085b")).toMatch(/U\+0085/);
  });
});

describe("parseKnetPairs", () => {
  it("reads KNET's response as the vector's plain text", () => {
    expect(
      parseKnetPairs(
        "paymentid=8962225231041181&result=NOT CAPTURED&auth=&avr=N&ref=&tranid=9929892231041181&postdate=0427&trackid=632187&udf1=&udf2=&udf3=&udf4=&udf5=&amt=5.000&authRespCode=51",
      ),
    ).toEqual({
      paymentid: "8962225231041181",
      result: "NOT CAPTURED",
      auth: "",
      avr: "N",
      ref: "",
      tranid: "9929892231041181",
      postdate: "0427",
      trackid: "632187",
      udf1: "",
      udf2: "",
      udf3: "",
      udf4: "",
      udf5: "",
      amt: "5.000",
      authRespCode: "51",
    });
  });

  it("reads + as a space (the manual's NOT+CAPTURED) and decodes %XX", () => {
    expect(parseKnetPairs("result=NOT+CAPTURED&ErrorText=Invalid%20tranportal%20ID")).toEqual({
      result: "NOT CAPTURED",
      ErrorText: "Invalid tranportal ID",
    });
    expect(parseKnetPairs("a=%2B1")).toEqual({ a: "+1" });
  });

  it("keeps a malformed escape as written, and splits on the first = only", () => {
    expect(parseKnetPairs("a=100%&b=%E0%A4%A&c=x=y")).toEqual({ a: "100%", b: "%E0%A4%A", c: "x=y" });
  });

  it("tolerates empty segments, names without =, repeats (last wins) and __proto__", () => {
    const pairs = parseKnetPairs("&a=1&&flag&a=2&__proto__=x&");
    expect(pairs).toEqual({ a: "2", flag: "", ["__proto__"]: "x" });
    expect(Object.getPrototypeOf(pairs)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(parseKnetPairs("")).toEqual({});
  });
});

describe("trackIdProblem", () => {
  it("takes 1–40 ASCII letters and digits", () => {
    expect(trackIdProblem("a")).toBeUndefined();
    expect(trackIdProblem("A".repeat(20) + "9".repeat(20))).toBeUndefined();
    expect(trackIdProblem("x".repeat(41))).toMatch(/at most 40 characters; this one has 41/);
    expect(trackIdProblem("")).toMatch(/empty/);
  });

  it.each(["att_01", "att-01", "att 01", "att.01", "att=01", "atté1", "att٣1"])("refuses %j", (trackId) => {
    expect(trackIdProblem(trackId)).toMatch(/letters and digits; this one has/);
  });
});

describe("udfProblem", () => {
  it.each([...UDF_FORBIDDEN_CHARACTERS])("refuses %j", (char) => {
    expect(udfProblem(`a${char}b`)).toBe(`KNET refuses '${char}' in udf fields.`);
  });

  it("refuses CR, LF and other control characters", () => {
    expect(udfProblem("a\rb")).toMatch(/CR\/LF/);
    expect(udfProblem("a\nb")).toMatch(/CR\/LF/);
    expect(udfProblem("a\tb")).toMatch(/control characters/);
    expect(udfProblem("a\u007fb")).toMatch(/control characters/);
  });

  it("takes empty, 255 characters, Arabic, spaces, @, / and the KFAST token; refuses 256", () => {
    for (const value of [
      "",
      "x".repeat(255),
      "طلب رقم 7",
      "ptlf amx1234567890",
      "a@b/c",
      "17653474",
      "sess_01-x.y=",
    ])
      expect(udfProblem(value)).toBeUndefined();
    expect(udfProblem("x".repeat(256))).toMatch(/at most 255 characters; this one has 256/);
  });
});

describe("knetAmount", () => {
  it("writes fils as dinars with exactly three decimals", () => {
    expect(knetAmount(1)).toBe("0.001");
    expect(knetAmount(15_750)).toBe("15.750");
    expect(knetAmount(10_000)).toBe("10.000");
    expect(knetAmount(20_550)).toBe("20.550");
  });

  it("takes 10 characters (999999.999) and refuses 11 (9999999.999)", () => {
    expect(knetAmount(999_999_999)).toBe("999999.999");
    expect(knetAmount(999_999_999)).toHaveLength(10);
    expect(() => knetAmount(9_999_999_999)).toThrow(/at most 10 characters/);
    expect(() => knetAmount(1_000_000_000)).toThrow(/1000000\.000 KWD does not fit/);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])("refuses %s fils", (fils) => {
    expect(() => knetAmount(fils)).toThrow(RangeError);
  });
});

describe("KNET's constants and the payment-initialisation URL", () => {
  it("names KNET's languages, currency, hosts and paths", () => {
    expect(KNET_LANG).toEqual({ en: "USA", ar: "AR" });
    expect(KNET_CURRENCY_KWD).toBe("414");
    expect(KNET_PRODUCTION_HOST).toBe("https://www.kpay.com.kw");
    expect(KNET_TEST_HOST).toBe("https://kpaytest.com.kw");
    expect(KNET_PAYMENT_INIT_PATH).toBe("/kpg/PaymentHTTP.htm?param=paymentInit");
    expect(KNET_TRAN_PIPE_PATH).toBe("/kpg/tranPipe.htm?param=tranInit");
  });

  it("builds the URL in KNET's order with the query values percent-encoded", () => {
    const url = paymentPageUrl(`${KNET_TEST_HOST}/`, {
      trandata: "ab12",
      tranportalId: "1234 01",
      responseURL: "https://svc.example/v1/knet?x=1&y=2",
      errorURL: "https://svc.example/pay/sess_x/return",
    });
    expect(url).toBe(
      "https://kpaytest.com.kw/kpg/PaymentHTTP.htm?param=paymentInit&trandata=ab12&tranportalId=1234%2001" +
        "&responseURL=https%3A%2F%2Fsvc.example%2Fv1%2Fknet%3Fx%3D1%26y%3D2&errorURL=https%3A%2F%2Fsvc.example%2Fpay%2Fsess_x%2Freturn",
    );
    const query = new URL(url).searchParams;
    expect(query.get("param")).toBe("paymentInit");
    expect(query.get("responseURL")).toBe("https://svc.example/v1/knet?x=1&y=2");
    expect([...query.keys()]).toEqual(["param", "trandata", "tranportalId", "responseURL", "errorURL"]);
  });
});

describe("KNET's reason code under either of the manual's names", () => {
  it("keeps authResponseCode (the manual's samples) as authRespCode (its field table)", () => {
    expect(knetResponse({ result: "NOT CAPTURED", authResponseCode: "51" })).toEqual({
      result: "NOT CAPTURED",
      authRespCode: "51",
    });
    expect(
      knetResponse({ result: "CAPTURED", authRespCode: "00", authResponseCode: "99" }).authRespCode,
    ).toBe("00");
  });
});
