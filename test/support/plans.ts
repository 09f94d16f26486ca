/** Query plans in tests: what PostgreSQL would do with a statement, read from `explain (format json)`. */
import type { Queryable } from "../../packages/service/src/db/client.js";

export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "TID Cond"?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, itself first, then each child's, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/** The plan of `sql` with `params` on `q` (PGlite returns the JSON as text, pg parsed). */
export async function explain(q: Queryable, sql: string, params?: readonly unknown[]): Promise<PlanNode> {
  const [row] = await q.query<{ "QUERY PLAN": [{ Plan: PlanNode }] | string }>(
    `explain (format json) ${sql}`,
    params,
  );
  const json = row!["QUERY PLAN"];
  return (typeof json === "string" ? JSON.parse(json) : json)[0].Plan;
}

/** The relations a plan reads from start to end (a `Seq Scan`): none of a big table's, in a hot path. */
export function seqScanned(plan: PlanNode): (string | undefined)[] {
  return planNodes(plan)
    .filter((n) => n["Node Type"] === "Seq Scan")
    .map((n) => n["Relation Name"]);
}

/** `q`, but each statement is explained first (its plan pushed to `plans`), then run. */
export function explaining(q: Queryable, plans: PlanNode[]): Queryable {
  return {
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      plans.push(await explain(q, sql, params));
      return q.query<T>(sql, params);
    },
  };
}
