import type { Queryable } from "../db/client.js";

export interface ChildRow {
  session_id: string;
  parent_session_id: string;
  operation: "refund" | "capture" | "void";
  amount_minor: number;
  currency_code: string;
  state: string;
  reference_number: string;
  source: "input" | "pg";
  created_at: Date;
}

export const paymentsRepo = {
  async children(q: Queryable, parentSessionId: string): Promise<ChildRow[]> {
    return q.query<ChildRow>(
      `select session_id, parent_session_id, operation, amount_minor, currency_code, state, reference_number, source, created_at
         from operations where parent_session_id = $1 order by created_at, session_id`,
      [parentSessionId],
    );
  },
};
