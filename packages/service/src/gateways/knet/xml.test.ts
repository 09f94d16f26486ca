import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { knetErrorOf, parseTranPipe, tranPipeBody } from "./xml.js";

describe("tranPipeBody", () => {
  it("writes sibling elements in the given order with no root (the manual's refund, 3.7.2)", () => {
    expect(
      tranPipeBody([
        ["id", "123401"],
        ["password", "123401pg"],
        ["action", "2"],
        ["amt", "2.000"],
        ["transid", "att01"],
        ["trackid", "att01"],
        ["udf5", "TrackID"],
      ]),
    ).toBe(
      "<id>123401</id><password>123401pg</password><action>2</action><amt>2.000</amt><transid>att01</transid><trackid>att01</trackid><udf5>TrackID</udf5>",
    );
  });

  it("escapes values and refuses a name that is not an XML element name", () => {
    expect(tranPipeBody([["password", `a<b>&"c'`]])).toBe(
      "<password>a&lt;b&gt;&amp;&quot;c&apos;</password>",
    );
    expect(() => tranPipeBody([["a b", "x"]])).toThrow(/not an XML element name/);
    expect(() => tranPipeBody([["1st", "x"]])).toThrow(/not an XML element name/);
  });
});

describe("parseTranPipe", () => {
  it("reads the manual's refund answer, line breaks and all", () => {
    const answer =
      "<result>CAPTURED</result><payid>100201719515482162</payid><trackid>\n6078874794527794643</trackid><udf1>\n</udf1><udf5></udf5><ref></ref><auth></auth><postdate></postdate><tranid></tranid><amt></amt>";
    expect(parseTranPipe(answer)).toEqual({
      result: "CAPTURED",
      payid: "100201719515482162",
      trackid: "6078874794527794643",
      udf1: "",
      udf5: "",
      ref: "",
      auth: "",
      postdate: "",
      tranid: "",
      amt: "",
    });
  });

  it("reads through a wrapping root, a declaration, comments, attributes and whitespace", () => {
    const answer = `<?xml version="1.0" encoding="UTF-8"?>
      <!-- KNET -->
      <response version="1">
        <result> SUCCESS </result>
        <amt currency='414'>20.550</amt>
        <udf2/>
        <udf3 />
      </response>`;
    expect(parseTranPipe(answer)).toEqual({ result: "SUCCESS", amt: "20.550", udf2: "", udf3: "" });
  });

  it("decodes entities and CDATA, leaves unknown entities, keeps the first of a repeated name", () => {
    expect(
      parseTranPipe(
        "<udf1>a &amp; b &lt;c&gt; &#38; &#x26; &quot;&apos; &nbsp; &#0;</udf1><udf2><![CDATA[<x>&amp;]]></udf2><udf1>second</udf1>",
      ),
    ).toEqual({ udf1: "a & b <c> & & \"' &nbsp; &#0;", udf2: "<x>&amp;" });
  });

  it("returns what it could read from garbage, and {} when nothing", () => {
    expect(parseTranPipe("")).toEqual({});
    expect(parseTranPipe("not xml at all < > &")).toEqual({});
    expect(parseTranPipe("<result>CAPTURED</result><payid>12")).toEqual({ result: "CAPTURED" });
    expect(parseTranPipe("</x><a><b>1</a>")).toEqual({});
    expect(
      parseTranPipe("<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>"),
    ).toEqual({ title: "502 Bad Gateway", h1: "502" });
  });

  it("never throws, whatever it is given", () => {
    const fragments = fc.constantFrom(
      "<",
      ">",
      "/",
      "<a>",
      "</a>",
      "<b/>",
      "&amp;",
      "&#x",
      "<![CDATA[",
      "]]>",
      '"',
      "x",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fragments).map((f) => f.join("")),
        ),
        (text) => {
          expect(typeof parseTranPipe(text)).toBe("object");
        },
      ),
      { numRuns: 500 },
    );
    expect(parseTranPipe(undefined as unknown as string)).toEqual({});
  });

  it("reads back what tranPipeBody wrote", () => {
    const name = fc.stringMatching(/^[a-z][A-Za-z0-9_]{0,8}$/);
    const value = fc
      .string({ unit: "grapheme", maxLength: 30 })
      .filter((v) => v === v.trim() && !/\p{Cc}/u.test(v));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n, maxLength: 8 }), (fields) => {
        expect(parseTranPipe(tranPipeBody(fields))).toEqual(Object.fromEntries(fields));
      }),
      { numRuns: 300 },
    );
  });
});

describe("knetErrorOf", () => {
  it("recognises FSS iPay's error tags with the !ERROR! result", () => {
    const answer = parseTranPipe(
      "<error_code_tag>IPAY0100263</error_code_tag><error_service_tag>null</error_service_tag><result>!ERROR!-IPAY0100263-Transaction details not available</result>",
    );
    expect(knetErrorOf(answer)).toEqual({ code: "IPAY0100263", text: "Transaction details not available" });
  });

  it("recognises a !ERROR! result alone, and error tags alone", () => {
    expect(
      knetErrorOf({ result: "!ERROR!-IPAY0100062-Transaction denied due to invalid Amount/Currency" }),
    ).toEqual({
      code: "IPAY0100062",
      text: "Transaction denied due to invalid Amount/Currency",
    });
    expect(knetErrorOf({ error_code_tag: "IPAY0100015", error_text: "Invalid tranportal password" })).toEqual(
      {
        code: "IPAY0100015",
        text: "Invalid tranportal password",
      },
    );
    expect(knetErrorOf({ error_code_tag: "IPAY0100020", error_service_tag: "tranPipe" })).toEqual({
      code: "IPAY0100020",
      text: "tranPipe",
    });
    expect(knetErrorOf({ result: "!ERROR!" })).toEqual({ code: "UNKNOWN", text: "" });
    expect(knetErrorOf({ result: "!ERROR!-Something went wrong" })).toEqual({
      code: "UNKNOWN",
      text: "Something went wrong",
    });
  });

  it("recognises the Error/ErrorText of KNET's plain error post", () => {
    expect(
      knetErrorOf({ Error: "IPAY0100042", ErrorText: "Transaction time limit exceeds", trackid: "a1" }),
    ).toEqual({ code: "IPAY0100042", text: "Transaction time limit exceeds" });
  });

  it("finds no error in KNET's answers that are not errors", () => {
    expect(knetErrorOf({ result: "CAPTURED", payid: "1" })).toBeUndefined();
    expect(knetErrorOf({ result: "NOT CAPTURED" })).toBeUndefined();
    expect(knetErrorOf({ result: "FAILURE", error_code_tag: "", error_service_tag: "null" })).toBeUndefined();
    expect(knetErrorOf({})).toBeUndefined();
  });
});
