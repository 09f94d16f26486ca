import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decryptTrandata, encryptTrandata, KnetTrandataError } from "./trandata.js";

/**
 * Computed by KNET's own raw PHP kit (SendPerformREQuest.php's encryptAES), copied here from
 * the spec's knet-vectors.json so the tests never read outside the repository.
 */
const KNET_VECTORS = [
  {
    resourceKey: "1234567890123456",
    plain:
      "id=123401&password=123401pg&action=1&langid=USA&currencycode=414&amt=20.550&responseURL=https://svc.example/v1/gateways/knet/notifications&errorURL=https://svc.example/pay/sess_x/return&trackid=att01&udf1=&udf2=&udf3=&udf4=&udf5=",
    trandataHex:
      "48300266ae21d9cbdff595a0b6eb09427703319d11d2c9c84c8e8bcc162fdedca1391a2ed63c1b9dda99ea03b47248fe65539600970d20d1a686c3ca843c8369eefdf8cf4855f0f98e218cd26653e015081daf1676e18fd1a21cc065cbe9706591b9b6a1c8f721f746f05a8694bb02c07ef276f6416bec12a4042415ec481322eb4309d6318ac5acf37f36e792950a989a3585d7278e7ea595765bfd97e35569c8ecd4ca1c9e85b0b5a77cc94d17dce1f4bbf7f47fce3995767d9cd9c76540b73e1db8075d3e146f2245e6084b64194ae3a7da7b58a0b35bbe5c45906df332a1beba631efab8b7e456d0c9da1c53de40",
  },
  {
    resourceKey: "K7c9Qw2Lm4Xz8Rt1",
    plain:
      "paymentid=8962225231041180&result=CAPTURED&auth=999554&avr=N&ref=411857974849&tranid=9929892231041180&postdate=0427&trackid=632186&udf1=&udf2=&udf3=&udf4=&udf5=&amt=20.550&authRespCode=00",
    trandataHex:
      "5042b7cd440732ea6e8922df952f699a062dc54e7ac87456735a4fccb7f9cebab86a49a12679d4a6ed55cf86725d1cd7c45bb708aed55ef9435ce9628c66a54f625d4533fe27fc69a2f46576241306cda189cc9bc41cd7b6db6c369890dbd60add3167a92277dd7e4b79d3a72fadc7133974689bf94f92c3bc9058b9304086583bdfe2cda072a3ae4731ee9ed4e7776a141205973bcf14de22b5b8f8dc957a84741d9a28dc04b66cd71fedd04894ff7adc4f311675509a9cd01915b064d34bd4",
  },
  {
    resourceKey: "K7c9Qw2Lm4Xz8Rt1",
    plain:
      "paymentid=8962225231041181&result=NOT CAPTURED&auth=&avr=N&ref=&tranid=9929892231041181&postdate=0427&trackid=632187&udf1=&udf2=&udf3=&udf4=&udf5=&amt=5.000&authRespCode=51",
    trandataHex:
      "5042b7cd440732ea6e8922df952f699ac8123b4d72c47a8c6074a23b4a53bca2774755c23c7f56182f720b1cbd17250b5e22b2bcbbbb634de60b6608e8853c1b3bba4077a72f244603f6b2f071cc438bb5cf893f74c944659323b94dbe1ab2e840dda27d10a068006af384ece162455d8422be79e7ef5816f19373a2bb186d9600cc2c11d7c65c508a163445fd437345443fe8f4351df0a9063eb0193c6f08519107b397980fd01d8e3caef7c73c779f",
  },
] as const;

const KEY = "K7c9Qw2Lm4Xz8Rt1";
const OTHER_KEY = "1234567890123456";

/** The error decryptTrandata threw, checked to be a KnetTrandataError that leaks nothing. */
function refusal(hex: string, key: string, plain = ""): KnetTrandataError {
  let caught: unknown;
  try {
    decryptTrandata(hex, key);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(KnetTrandataError);
  const error = caught as KnetTrandataError;
  expect(error.message).not.toContain(key);
  if (plain) expect(error.message).not.toContain(plain.slice(0, 12));
  return error;
}

const flipBit = (hex: string, bit: number) => {
  const bytes = Buffer.from(hex, "hex");
  bytes[bit >> 3]! ^= 1 << (bit & 7);
  return bytes.toString("hex");
};

describe("KNET trandata (AES-128-CBC, key = IV = the resource key)", () => {
  it.each(KNET_VECTORS.map((v, i) => [i + 1, v] as const))(
    "vector %i: encrypts to exactly KNET's kit's trandata and decrypts back",
    (_, vector) => {
      expect(encryptTrandata(vector.plain, vector.resourceKey)).toBe(vector.trandataHex);
      expect(decryptTrandata(vector.trandataHex, vector.resourceKey)).toBe(vector.plain);
    },
  );

  it("reads upper-case hex and ignores surrounding whitespace, as the kit's trim", () => {
    const vector = KNET_VECTORS[1];
    expect(decryptTrandata(`  ${vector.trandataHex.toUpperCase()}\r\n`, vector.resourceKey)).toBe(
      vector.plain,
    );
  });

  it("round-trips random printable name=value strings under random keys", () => {
    const printable = fc.string({ unit: "grapheme", maxLength: 60 }).filter((s) => !/\p{Cc}/u.test(s));
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,10}$/);
    const plain = fc
      .array(fc.tuple(name, printable), { minLength: 1, maxLength: 8 })
      .map((pairs) => pairs.map(([n, v]) => `${n}=${v}`).join("&"));
    const key = fc.stringMatching(/^[ -~]{16}$/);
    fc.assert(
      fc.property(plain, key, (text, resourceKey) => {
        const hex = encryptTrandata(text, resourceKey);
        expect(hex).toMatch(/^([0-9a-f]{32})+$/);
        expect(decryptTrandata(hex, resourceKey)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses every single flipped bit of every vector (last block: padding; others: garbled text)", () => {
    for (const vector of KNET_VECTORS) {
      const bits = (vector.trandataHex.length / 2) * 8;
      const codes = new Set<string>();
      for (let bit = 0; bit < bits; bit++)
        codes.add(refusal(flipBit(vector.trandataHex, bit), vector.resourceKey, vector.plain).code);
      expect([...codes].sort()).toEqual(["bad_padding", "not_knet_pairs"]);
    }
    const last = KNET_VECTORS[1].trandataHex.length * 4 - 1;
    expect(refusal(flipBit(KNET_VECTORS[1].trandataHex, last), KEY).code).toBe("bad_padding");
  });

  it("refuses truncated, odd-length, non-hex and empty trandata", () => {
    const hex = KNET_VECTORS[1].trandataHex;
    expect(refusal(hex.slice(0, -32), KEY).code).not.toBe("bad_length"); // whole blocks: padding or text
    expect(refusal(hex.slice(0, -2), KEY).code).toBe("bad_length");
    expect(refusal(hex.slice(0, -1), KEY).code).toBe("bad_length");
    expect(refusal(`${hex.slice(0, -1)}g`, KEY).code).toBe("not_hex");
    expect(refusal("", KEY).code).toBe("bad_length");
    expect(refusal("trandata=00", KEY).code).toBe("not_hex");
  });

  it("refuses another terminal's key without naming the key or the plaintext", () => {
    const vector = KNET_VECTORS[1];
    const error = refusal(vector.trandataHex, OTHER_KEY, vector.plain);
    expect(["bad_padding", "not_knet_pairs"]).toContain(error.code);
    expect(error.name).toBe("KnetTrandataError");
  });

  it("refuses plaintext that is not KNET's name=value text", () => {
    expect(refusal(encryptTrandata("hello world", KEY), KEY, "hello world").code).toBe("not_knet_pairs");
    expect(refusal(encryptTrandata("=value", KEY), KEY).code).toBe("not_knet_pairs");
    expect(refusal(encryptTrandata("result=CAPTURED\n", KEY), KEY).code).toBe("not_knet_pairs");
    expect(refusal(encryptTrandata("a=\u0000", KEY), KEY).code).toBe("not_knet_pairs");
  });

  it("refuses random cipher texts with KnetTrandataError, never another error", () => {
    const blocks = fc.uint8Array({ minLength: 16, maxLength: 96 }).map((b) => b.subarray(0, b.length & ~15));
    fc.assert(
      fc.property(blocks, (bytes) => {
        fc.pre(bytes.length > 0);
        refusal(Buffer.from(bytes).toString("hex"), KEY);
      }),
      { numRuns: 300 },
    );
  });

  it("treats a resource key that is not 16 bytes as a programming error, not as KNET's", () => {
    for (const key of ["", "123456789012345", "12345678901234567", "ك234567890123456"]) {
      expect(() => encryptTrandata("a=b", key)).toThrow(RangeError);
      expect(() => decryptTrandata(KNET_VECTORS[1].trandataHex, key)).toThrow(/is 16 bytes; this one is/);
    }
    let message = "";
    try {
      encryptTrandata("a=b", "secretsecret");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/is 12\./);
    expect(message).not.toContain("secretsecret");
  });
});
