/**
 * Dashboard sessions, stored in the database: the browser holds a random 32-byte token in an
 * HttpOnly cookie scoped to /dashboard; the table holds only its SHA-256, so reading the table
 * signs nobody in. A session ends after an idle period or an absolute lifetime, whichever comes
 * first, and at sign-out. A new token is issued at every sign-in (no session fixation).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../db/client.js";
import type { AuthUser } from "../http/auth.js";

export const SESSION_COOKIE = "svc_dash";
/** The sign-in form's own CSRF cookie (double submit), before any session exists. */
export const PRE_SESSION_COOKIE = "svc_dash_pre";
export const IDLE_TIMEOUT_MS = 30 * 60_000; // 30 min without a request ends the session
export const ABSOLUTE_LIFETIME_MS = 12 * 3600_000; // a working day; then sign in again
const TOUCH_EVERY_MS = 60_000; // last_seen_at is written at most once a minute per session

export interface Flash {
  kind: "success" | "info" | "error";
  text: string;
}

export interface DashboardSession {
  tokenHash: string;
  csrfToken: string;
  merchantId: string;
  user: AuthUser;
  flash: Flash | null;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

interface SessionRow extends AuthUser {
  token_hash: string;
  csrf_token: string;
  merchant_id: string;
  flash: Flash | null;
  last_seen_at: Date;
  expires_at: Date;
}

export function createSessionStore(db: Db, now: () => Date) {
  return {
    /** Starts a session; returns the cookie token (never stored) and the session. */
    async create(user: { id: number }, merchantId: string): Promise<{ token: string }> {
      const token = newToken();
      const at = now();
      await db.query(
        `insert into dashboard_sessions (token_hash, user_id, merchant_id, csrf_token, created_at, last_seen_at, expires_at)
         values ($1, $2, $3, $4, $5, $5, $6)`,
        [
          hashToken(token),
          user.id,
          merchantId,
          newToken(),
          at,
          new Date(at.getTime() + ABSOLUTE_LIFETIME_MS),
        ],
      );
      // Expired sessions of anyone are swept here, so the table does not grow without bound.
      await db.query("delete from dashboard_sessions where expires_at <= $1 or last_seen_at <= $2", [
        at,
        new Date(at.getTime() - IDLE_TIMEOUT_MS),
      ]);
      return { token };
    },

    /** The live session of a cookie token, or undefined (expired, signed out, user disabled). */
    async load(token: string): Promise<DashboardSession | undefined> {
      const at = now();
      const rows = await db.query<SessionRow>(
        `select s.token_hash, s.csrf_token, s.merchant_id, s.flash, s.last_seen_at, s.expires_at,
                u.id, u.username, u.email, u.first_name, u.last_name, u.phone, u.permissions
           from dashboard_sessions s join users u on u.id = s.user_id
          where s.token_hash = $1 and u.disabled_at is null`,
        [hashToken(token)],
      );
      const row = rows[0];
      if (!row) return undefined;
      const idleSince = at.getTime() - row.last_seen_at.getTime();
      if (row.expires_at.getTime() <= at.getTime() || idleSince >= IDLE_TIMEOUT_MS) {
        await db.query("delete from dashboard_sessions where token_hash = $1", [row.token_hash]);
        return undefined;
      }
      if (idleSince >= TOUCH_EVERY_MS)
        await db.query("update dashboard_sessions set last_seen_at = $2 where token_hash = $1", [
          row.token_hash,
          at,
        ]);
      return {
        tokenHash: row.token_hash,
        csrfToken: row.csrf_token,
        merchantId: row.merchant_id,
        flash: row.flash,
        user: {
          id: row.id,
          username: row.username,
          email: row.email,
          first_name: row.first_name,
          last_name: row.last_name,
          phone: row.phone,
          permissions: row.permissions,
        },
      };
    },

    async destroy(tokenHash: string): Promise<void> {
      await db.query("delete from dashboard_sessions where token_hash = $1", [tokenHash]);
    },

    /** One notice for the next page (post/redirect/get). */
    async setFlash(tokenHash: string, flash: Flash): Promise<void> {
      await db.query("update dashboard_sessions set flash = $2 where token_hash = $1", [
        tokenHash,
        JSON.stringify(flash),
      ]);
    },

    async clearFlash(tokenHash: string): Promise<void> {
      await db.query("update dashboard_sessions set flash = null where token_hash = $1", [tokenHash]);
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** A Set-Cookie value scoped to the dashboard; `maxAgeSeconds` 0 deletes it. */
export function cookieHeader(
  name: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds?: number },
): string {
  const parts = [`${name}=${value}`, "Path=/dashboard", "HttpOnly", "SameSite=Lax"];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
