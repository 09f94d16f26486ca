/**
 * Every error leaves the service as RFC 9457 problem+json with a stable `code` from the
 * catalogue in @svc/protocol and a `detail` that says what to do.
 */
import { ERROR_CATALOGUE, type ErrorCode, PROBLEM_TYPE_BASE, type Problem } from "@svc/protocol";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isDatabaseUnavailable } from "../db/client.js";
import { isTransactionConflict } from "../db/conflict.js";

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: Record<string, string[]> | undefined;
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: Record<string, string[]>; extra?: Record<string, unknown>; status?: number } = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? ERROR_CATALOGUE[code].status;
    this.errors = options.errors;
    this.extra = options.extra ?? {};
  }

  toProblem(): Problem {
    return {
      type: `${PROBLEM_TYPE_BASE}${this.code}`,
      title: ERROR_CATALOGUE[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }
}

/** A 422 names at most this many fields (and says how many more): its size never grows with the input. */
export const MAX_REPORTED_FIELDS = 20;
const MAX_MESSAGES_PER_FIELD = 3;

/** A validation failure naming each offending field (the first {@link MAX_REPORTED_FIELDS}). */
export function validationError(all: Record<string, string[]>): AppError {
  const names = Object.keys(all);
  const errors: Record<string, string[]> = Object.create(null);
  for (const name of names.slice(0, MAX_REPORTED_FIELDS))
    errors[name.slice(0, 200)] = all[name]!.slice(0, MAX_MESSAGES_PER_FIELD);
  const omitted = names.length - Object.keys(errors).length;
  const fields = Object.keys(errors);
  const first = fields[0] ?? "body";
  const detail =
    fields.length === 1
      ? `Fix the field "${first}": ${errors[first]?.[0] ?? "it is invalid"}.`
      : `Fix the fields ${fields.map((f) => `"${f}"`).join(", ")}${omitted > 0 ? ` and ${omitted} more` : ""}; see "errors" for each.`;
  return new AppError("validation_failed", detail, {
    errors,
    ...(omitted > 0 ? { extra: { errors_omitted: omitted } } : {}),
  });
}

export class FieldErrors {
  // No prototype: a field named "toString" or "__proto__" is just a field.
  readonly errors: Record<string, string[]> = Object.create(null);
  add(field: string, message: string): void {
    const list = Object.hasOwn(this.errors, field) ? this.errors[field]! : [];
    list.push(message);
    this.errors[field] = list;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw validationError(this.errors);
  }
}

interface AjvIssue {
  instancePath: string;
  /** Where in the schema the rule is, e.g. `#/properties/expiry/anyOf/1/type`. */
  schemaPath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** What a field's value must be, in words, by its JSON Schema type. */
const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};
const typeWords = (type: string) => TYPE_WORDS[type] ?? `of type ${type}`;

/**
 * One message per broken alternative of an `anyOf` (a value that may be a string or null, a
 * duration or a number of seconds), instead of Ajv's one error per branch and "must match a
 * schema in anyOf": the branches whose type the value has say what is wrong with it; when it has
 * none of their types, one message names them all ("must be a string or null").
 */
function collapseAlternatives(issues: AjvIssue[]): AjvIssue[] {
  const unions = issues.filter((i) => i.keyword === "anyOf");
  if (unions.length === 0) return issues;
  let out = issues.filter((i) => i.keyword !== "anyOf");
  for (const union of unions) {
    const base = `${union.schemaPath ?? ""}/`;
    const branches = out.filter((i) => i.schemaPath?.startsWith(base));
    if (branches.length === 0) continue;
    const typeMismatches = branches.filter((i) => i.keyword === "type");
    const typed = branches.filter((i) => i.keyword !== "type");
    out = out.filter((i) => !branches.includes(i));
    if (typed.length > 0) out.push(...typed);
    else {
      const types = typeMismatches.map((i) => String(i.params.type));
      out.push({
        instancePath: union.instancePath,
        keyword: "anyOfTypes",
        params: { types },
      });
    }
  }
  return out;
}

/** What a query's problems are read against: the query as parsed, and the parameters the endpoint takes. */
export interface QueryContext {
  values: unknown;
  parameters: string[];
}

/**
 * Turns Ajv's schema errors into field → message pairs a developer can act on. For a query,
 * `query` says what was sent and what the endpoint takes: a parameter given twice reaches Ajv as
 * a list, and is told to be given once rather than to be of its type; an unknown one is told the
 * ones there are.
 */
export function ajvToFieldErrors(
  issues: AjvIssue[],
  context: string,
  query?: QueryContext,
): Record<string, string[]> {
  const out = new FieldErrors();
  const givenTwice = new Set<string>();
  for (const issue of collapseAlternatives(issues)) {
    let field = issue.instancePath.replace(/^\//, "").replace(/\//g, ".") || context;
    let message: string;
    // A query parameter given twice is told so once, not also what one value must be (Ajv reports
    // the list against the value's type and enum alike: `?state=paid&state=failed`).
    if (query && field !== context && Array.isArray(queryValue(query.values, field))) {
      if (!givenTwice.has(field)) out.add(field, "is given more than once; give it once");
      givenTwice.add(field);
      continue;
    }
    switch (issue.keyword) {
      case "required":
        field = [field === context ? "" : field, String(issue.params.missingProperty)]
          .filter(Boolean)
          .join(".");
        message = "is required";
        break;
      case "additionalProperties":
        field = [field === context ? "" : field, String(issue.params.additionalProperty)]
          .filter(Boolean)
          .join(".");
        message = !query
          ? "is not a known field; remove it or check its spelling"
          : query.parameters.length === 0
            ? "is not taken: this endpoint has no query parameters; remove it"
            : `is not a parameter of this endpoint (${query.parameters.join(", ")}); remove it or check its spelling`;
        break;
      case "type":
        message = `must be ${typeWords(String(issue.params.type))}`;
        break;
      case "anyOfTypes": {
        const words = (issue.params.types as string[]).map(typeWords);
        message = `must be ${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
        break;
      }
      case "maxLength":
        message = `must be at most ${String(issue.params.limit)} characters`;
        break;
      case "minLength":
        message =
          Number(issue.params.limit) === 1
            ? "must not be empty"
            : `must be at least ${String(issue.params.limit)} characters`;
        break;
      case "enum":
        message = `must be one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
        break;
      case "const":
        message = `must be ${JSON.stringify(issue.params.allowedValue)}`;
        break;
      case "pattern":
        message =
          PATTERN_WORDS[String(issue.params.pattern)] ??
          `has the wrong format (it must match ${String(issue.params.pattern)})`;
        break;
      case "format":
        message = issue.message ?? "has the wrong format";
        break;
      case "minimum":
        message = `must be ${String(issue.params.limit)} or more`;
        break;
      case "maximum":
        message = `must be ${String(issue.params.limit)} or less`;
        break;
      case "exclusiveMinimum":
        message = `must be more than ${String(issue.params.limit)}`;
        break;
      case "exclusiveMaximum":
        message = `must be less than ${String(issue.params.limit)}`;
        break;
      case "maxProperties":
      case "maxItems":
      case "minProperties":
      case "minItems": {
        const limit = Number(issue.params.limit);
        const noun = issue.keyword.endsWith("Items") ? "item" : "field";
        message = `must have at ${issue.keyword.startsWith("max") ? "most" : "least"} ${limit} ${noun}${limit === 1 ? "" : "s"}`;
        break;
      }
      default:
        message = issue.message ?? "is invalid";
    }
    out.add(field, message);
  }
  return out.errors;
}

/** What the route schemas' patterns ask for, in words (Ajv's own is "must match pattern …"). */
const PATTERN_WORDS: Record<string, string> = {
  "^[0-9]+$": "must be digits only (0–9)",
  "^sess_[a-z0-9]+$": "must be a session id: sess_ followed by lowercase letters and digits",
  "^[a-z][a-z0-9_]*$": "must be a lowercase name: a letter, then letters, digits or _",
};

/** A query parameter's value(s) as the router parsed them (`a=1&a=2` is a list). */
function queryValue(values: unknown, name: string): unknown {
  return typeof values === "object" && values !== null && Object.hasOwn(values, name)
    ? (values as Record<string, unknown>)[name]
    : undefined;
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  return reply.status(error.status).type("application/problem+json").send(error.toProblem());
}

/** What a 503 asks the client to wait before trying again. */
export const RETRY_AFTER_SECONDS = 2;
/** Retry-After of a request whose transaction a conflict undid: the other one is done by then. */
const CONFLICT_RETRY_AFTER_SECONDS = 1;

type RetryLater = "database_unavailable" | "database_conflict";

const RETRY_LATER: Record<RetryLater, string> = {
  database_unavailable: `The service cannot reach its database just now, so the request did not complete. Retry in ${RETRY_AFTER_SECONDS} s with the same Idempotency-Key: whatever it had started is finished, never done twice.`,
  database_conflict: `The request ran into another one changing the same records at the same moment, and the database undid it. Retry in ${CONFLICT_RETRY_AFTER_SECONDS} s with the same Idempotency-Key: whatever it had started is finished, never done twice.`,
};

/**
 * A database failure after which the same request goes through a moment later, for the API's and
 * the dashboard's error handlers: the database is down, restarting or not answering
 * (`database_unavailable`), or it undid the request's transaction to break a deadlock with another
 * one (`database_conflict`; the paths known to meet one run theirs again first, db/conflict.ts).
 * Logs it and sets Retry-After; undefined for any other error.
 */
export function retryLater(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): RetryLater | undefined {
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, "database unavailable");
    request.databaseUnavailable = true;
    reply.header("retry-after", String(RETRY_AFTER_SECONDS));
    return "database_unavailable";
  }
  if (isTransactionConflict(error)) {
    request.log.warn({ err: error }, "transaction undone by a conflict");
    reply.header("retry-after", String(CONFLICT_RETRY_AFTER_SECONDS));
    return "database_conflict";
  }
  return undefined;
}

/** Errors whose detail tells the merchant's operator what to fix in svc's configuration. */
const OPERATOR_ONLY: ReadonlySet<string> = new Set([
  "gateway_credentials_unavailable",
  "secrets_key_missing",
]);
const CUSTOMER_WORDS =
  "The merchant's payment setup cannot take this payment just now, and nothing was charged. Try again later or choose another way to pay.";

/** Fastify's error handler: known errors map to their codes, anything else is a bare 500. */
export function errorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof AppError) {
    // Words for the merchant's operator (which key sealed a credential, which variable to set)
    // are not for the customer's browser, which holds only the public key.
    if (request.principal?.kind === "public" && OPERATOR_ONLY.has(error.code))
      return sendProblem(reply, new AppError(error.code, CUSTOMER_WORDS));
    return sendProblem(reply, error);
  }
  if (error.validation) {
    const context = error.validationContext ?? "body";
    const schema = request.routeOptions.schema?.querystring as { properties?: object } | undefined;
    const query =
      context === "querystring"
        ? { values: request.query, parameters: Object.keys(schema?.properties ?? {}) }
        : undefined;
    return sendProblem(
      reply,
      validationError(ajvToFieldErrors(error.validation as AjvIssue[], context, query)),
    );
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return sendProblem(
        reply,
        new AppError("unsupported_media_type", "Send the body with Content-Type: application/json."),
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return sendProblem(
        reply,
        new AppError("invalid_json", "The body is empty; send a JSON object.", { status: 400 }),
      );
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return sendProblem(reply, new AppError("body_too_large", "Send a body smaller than 1 MB."));
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return sendProblem(
        reply,
        new AppError("invalid_json", "The Content-Length does not match the body.", { status: 400 }),
      );
  }
  if (error instanceof SyntaxError) {
    return sendProblem(
      reply,
      new AppError("invalid_json", `The body is not valid JSON: ${error.message}. Send a JSON object.`, {
        status: 400,
      }),
    );
  }
  // Any other request Fastify or a plugin could not read: its own 4xx, not a JSON error.
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return sendProblem(
      reply,
      new AppError("invalid_request", `The request could not be read: ${error.message}. See /docs.`, {
        status: error.statusCode,
      }),
    );
  }
  const later = retryLater(error, request, reply);
  if (later) return sendProblem(reply, new AppError(later, RETRY_LATER[later]));
  request.log.error({ err: error }, "unhandled error");
  return sendProblem(
    reply,
    new AppError(
      "internal_error",
      `Something went wrong on our side. Quote request id ${request.id} to support; nothing was changed.`,
    ),
  );
}
