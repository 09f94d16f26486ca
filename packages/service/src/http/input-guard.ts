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
 * - query integers are numbers: `?limit=5` is read as 5 where the route's schema says integer.
 *
 * A refusal is 422 `validation_failed` naming the field (`errors`), except the content type (415).
 */
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

export function registerInputGuard(app: FastifyInstance): void {
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
