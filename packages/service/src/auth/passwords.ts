/**
 * Dashboard passwords: scrypt (memory-hard) with a per-password salt, stored as
 * `scrypt$N$r$p$salt$hash` so the parameters can be raised later without breaking old hashes.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** Password verifications done by this process (tests count them: the lockout bounds them). */
let verifications = 0;
export const passwordVerifications = (): number => verifications;

const SCRYPT_N = 16384; // 2^14: 16 MiB of memory per hash with r = 8
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P);
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  verifications += 1;
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A password rule a merchant's staff can follow: long rather than complicated. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 10) return "must be at least 10 characters";
  if (password.length > 200) return "must be at most 200 characters";
  return undefined;
}

let dummy: Promise<string> | undefined;
/**
 * A hash of a random password with the current parameters: verifying against it when the user
 * does not exist costs what verifying a real user's costs, so response times do not tell which
 * usernames exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  return dummy;
}
