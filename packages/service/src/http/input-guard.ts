/**
 * What every request's input must be before any route sees it, checked in one place for every
 * route (JSON API, SDK, dashboard and hosted-page forms), so a new route is covered by default:
 *
 * - strings hold text PostgreSQL can store and people can read: no NUL, no other C0 control
 *   character except tab, line feed and carriage return, no DEL, no lone UTF-16 surrogate —
 *   in path parameters, query parameters, JSON bodies (keys and values) and form fields;
 * - JSON nests at most {@link MAX_DEPTH} levels, an object has at most {@link MAX_KEYS} keys and a
 *   body at most {@link MAX_VALUES} values, checked in one pass before schema validation, so a
 *   flood of unknown fields costs a scan, not a 7 MB list of errors;
 * - the API under `/v1/` takes JSON bodies only: a form-encoded body there is 415 (forms are for
 *   the dashboard and the hosted pages), except on a route whose config says `gatewayForms`
 *   (the gateway notification endpoint: KNET posts its response as a form);
 * - query integers are numbers: `?limit=5` is read as 5 where the route's schema says integer;
 * - a JSON body is UTF-8 (another declared charset is 415, bytes that are not UTF-8 are 400: they
 *   were stored as U+FFFD before), names no field twice at one level (the last one won, so a proxy
 *   reading the first saw another request) and no `__proto__` or `constructor.prototype`
 *   (prototype pollution), and a syntax error says where it is ({@link parseJsonBody}).
 *
 * A refusal is 422 `validation_failed` naming the field (`errors`), except the content type (415).
 */
import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, validationError } from "./problem.js";

export const MAX_DEPTH = 32;
/** More than any schema of ours has properties: a body past it is junk, refused before validation. */
export const MAX_KEYS = 200;
export const MAX_VALUES = 10_000;

// C0 controls but tab (\x09), LF (\x0a) and CR (\x0d); DEL; and unpaired UTF-16 surrogates.
const FORBIDDEN =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `value` cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  const found = FORBIDDEN.exec(value);
  if (!found) return undefined;
  const char = found[0].charCodeAt(0);
  if (char === 0) return "must not contain the NUL character (U+0000)";
  if (char >= 0xd800) return "must be valid Unicode text (it holds an unpaired surrogate)";
  return `must not contain control characters (found U+${char.toString(16).toUpperCase().padStart(4, "0")})`;
}

/**
 * Walks `value` iteratively (no recursion, so no depth can overflow the stack) and returns the
 * first problem as [field path, message], or undefined.
 */
export function inputProblem(value: unknown, root: string): [string, string] | undefined {
  const stack: [unknown, string, number][] = [[value, root, 0]];
  let values = 0;
  while (stack.length > 0) {
    const [node, path, depth] = stack.pop()!;
    if (++values > MAX_VALUES) return [root, `must hold at most ${MAX_VALUES} values; send less`];
    if (typeof node === "string") {
      const problem = textProblem(node);
      if (problem) return [path, problem];
      continue;
    }
    if (typeof node !== "object" || node === null) continue;
    if (depth >= MAX_DEPTH) return [path, `nests deeper than ${MAX_DEPTH} levels; flatten it`];
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    if (!Array.isArray(node) && entries.length > MAX_KEYS)
      return [
        path,
        `has ${entries.length} fields, more than the ${MAX_KEYS} any request takes; remove the unknown ones`,
      ];
    for (const [key, child] of entries) {
      const childPath = path === root && root === "body" ? key : `${path}.${key}`;
      const keyProblem = Array.isArray(node) ? undefined : textProblem(key);
      if (keyProblem) return [childPath, `has a field name that ${keyProblem}`];
      stack.push([child, childPath, depth + 1]);
    }
  }
  return undefined;
}

const FORM = /^application\/x-www-form-urlencoded/i;

interface QuerySchema {
  properties?: Record<string, { type?: string }>;
}

/** Query values that the route's schema types as integers, turned into numbers when they are written as one. */
function coerceQueryIntegers(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.querystring as QuerySchema | undefined;
  const query = request.query as Record<string, unknown> | undefined;
  if (!schema?.properties || !query) return;
  for (const [name, property] of Object.entries(schema.properties)) {
    const raw = query[name];
    if (
      (property.type === "integer" || property.type === "number") &&
      typeof raw === "string" &&
      /^-?\d{1,15}$/.test(raw)
    )
      query[name] = Number(raw);
  }
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Under /v1/, this route takes form bodies too (a gateway's own protocol posts them). */
    gatewayForms?: boolean;
  }
}

/** A JSON body's problem: 400 `invalid_json`, saying what to fix. */
const badJson = (detail: string) => new AppError("invalid_json", detail, { status: 400 });

/** Objects in `value` (iteratively) that hold `__proto__`, or `constructor` with a `prototype`. */
function poisoned(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (!Array.isArray(node)) {
      if (Object.hasOwn(node, "__proto__")) return true;
      const ctor = (node as { constructor?: unknown }).constructor;
      if (
        Object.hasOwn(node, "constructor") &&
        typeof ctor === "object" &&
        ctor !== null &&
        "prototype" in ctor
      )
        return true;
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return false;
}

/**
 * A field named twice in one object (`{"amount":"-1","amount":"10.500"}`): JSON.parse keeps the
 * last, so the request svc acted on was not the one a proxy or a log reading the first saw. The
 * text is walked object by object only when it has more `"…":` than the parsed value has keys (a
 * duplicate, or a string value holding `":`) — an ordinary body costs a count.
 */
function duplicateField(text: string, value: unknown): string | undefined {
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (!Array.isArray(node)) keys += Object.keys(node).length;
    for (const child of Object.values(node)) stack.push(child);
  }
  const pairs = text.match(/"\s*:/g)?.length ?? 0;
  if (pairs <= keys) return undefined;
  // Slow path: walk the text's objects in order, counting each object's names.
  let found: string | undefined;
  const seen: Set<string>[] = [];
  let inString = false;
  let escaped = false;
  let start = -1;
  for (let i = 0; i < text.length && found === undefined; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') {
        inString = false;
        // A string followed by a colon is a field name of the innermost object.
        let j = i + 1;
        while (j < text.length && /\s/.test(text[j]!)) j++;
        if (text[j] === ":" && seen.length > 0) {
          const name = JSON.parse(text.slice(start, i + 1)) as string;
          const names = seen[seen.length - 1]!;
          if (names.has(name)) found = name;
          names.add(name);
        }
      }
    } else if (c === '"') {
      inString = true;
      start = i;
    } else if (c === "{") seen.push(new Set());
    else if (c === "}") seen.pop();
    else if (c === "[") seen.push(new Set());
    else if (c === "]") seen.pop();
  }
  return found;
}

/**
 * The API's JSON body parser, in place of Fastify's: UTF-8 only, no field twice, no prototype
 * keys, and a syntax error that says where (JSON.parse's own message, e.g. "Expected
 * double-quoted property name in JSON at position 21").
 */
export function parseJsonBody(body: Buffer, contentType: string | undefined): unknown {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8")
    throw new AppError(
      "unsupported_media_type",
      `The body is declared as ${charset}; send it as UTF-8 (Content-Type: application/json; charset=utf-8).`,
    );
  if (body.length === 0) throw badJson("The body is empty; send a JSON object.");
  if (!isUtf8(body)) throw badJson("The body is not valid UTF-8; send it encoded as UTF-8.");
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badJson(`The body is not valid JSON (${(error as Error).message}); send a JSON object.`);
  }
  if ((text.includes("__proto__") || text.includes("constructor")) && poisoned(value))
    throw badJson(
      'The body names a field "__proto__" or "constructor.prototype", which svc refuses; remove it.',
    );
  const twice = duplicateField(text, value);
  if (twice !== undefined)
    throw badJson(`The body names the field "${twice.slice(0, 100)}" twice in one object; send it once.`);
  return value;
}

export function registerInputGuard(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    try {
      // An endpoint that takes no body (app.ts) takes none even when a client labels it JSON, as
      // many HTTP clients do on every request.
      if ((body as Buffer).length === 0 && !request.routeOptions.schema?.body) return done(null, undefined);
      done(null, parseJsonBody(body as Buffer, request.headers["content-type"]));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // A query string that is not valid percent-encoding is refused as such a path is (app.ts's
  // frameworkErrors), not read literally: `?order_no=%ED%A0%80` searched for those 9 characters.
  app.addHook("onRequest", async (request) => {
    const at = request.url.indexOf("?");
    if (at < 0 || !request.url.startsWith("/v1/") || !request.url.includes("%", at)) return;
    for (const piece of request.url.slice(at + 1).split(/[&=]/)) {
      try {
        decodeURIComponent(piece);
      } catch {
        throw new AppError(
          "invalid_url",
          "The query string is not valid percent-encoding (e.g. %E0%A4 cut short, or bytes that are not UTF-8); encode each value as UTF-8.",
        );
      }
    }
  });
  app.addHook("preValidation", async (request) => {
    if (
      request.url.startsWith("/v1/") &&
      FORM.test(request.headers["content-type"] ?? "") &&
      !request.routeOptions.config?.gatewayForms
    )
      throw new AppError(
        "unsupported_media_type",
        "Send the body as JSON with Content-Type: application/json.",
      );
    for (const [part, value] of [
      ["params", request.params],
      ["query", request.query],
      ["body", Buffer.isBuffer(request.body) ? undefined : request.body],
    ] as const) {
      const problem = inputProblem(value, part);
      if (problem) {
        const [field, message] = problem;
        throw validationError({ [field.replace(/^(params|query)\./, "")]: [message] });
      }
    }
    coerceQueryIntegers(request);
  });
}
