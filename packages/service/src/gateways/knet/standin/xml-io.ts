/**
 * The server API's XML as the stand-in reads and writes it, written from the manual's samples
 * (3.7.2, 3.7.3) and independent of svc's xml.ts: a request is a run of `<name>value</name>`
 * siblings; an answer is one too, errors in FSS iPay's tags.
 */
import { KNET_ERRORS, type KnetErrorCode } from "./knet-errors.js";

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** The request's elements by name (the first of a repeated name counts), values trimmed. */
export function readXmlFields(body: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [, name, raw] of body.matchAll(/<([A-Za-z][A-Za-z0-9_]*)\s*>([^<]*)<\/\1\s*>/g)) {
    const value = raw!.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (entity, e: string) => {
      if (!e.startsWith("#")) return ENTITIES[e]!;
      const code = e.startsWith("#x") ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    });
    if (!fields.has(name!)) fields.set(name!, value.trim());
  }
  return Object.fromEntries(fields);
}

const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** An answer: the elements in order, no root (as the manual's sample answer). */
export function writeXml(elements: ReadonlyArray<readonly [string, string]>): string {
  return elements.map(([name, value]) => `<${name}>${escape(value)}</${name}>`).join("");
}

/** KNET's error answer, as FSS iPay writes it (error_code_tag, error_service_tag and !ERROR! result). */
export function errorXml(code: KnetErrorCode): string {
  return writeXml([
    ["error_code_tag", code],
    ["error_service_tag", "null"],
    ["result", `!ERROR!-${code}-${KNET_ERRORS[code]}`],
  ]);
}
