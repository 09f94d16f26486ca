import { type TSchema, Type } from "@sinclair/typebox";

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
