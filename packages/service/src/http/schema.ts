import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { type TSchema, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";

/**
 * A string enum as JSON Schema `enum` (not TypeBox's anyOf of literals), so a wrong value gets
 * one clear message, "must be one of …", instead of one error per allowed value.
 */
export function stringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TSchema & { static: T[number] } {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/**
 * The app with route types taken from the route schemas (TypeBox): `request.body`, `params`
 * and `query` are typed by the schema that validated them, so a route needs no cast and a
 * schema change that breaks a handler fails the type check.
 */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}
