/**
 * Liveness and readiness probes as an orchestrator sends them, for fault tests: `/healthz` and
 * `/readyz` of every process, each in a loop of its own (a slow readiness answer never delays the
 * liveness probe), every answer recorded with its time. Each probe opens a connection of its own,
 * as the kubelet's do: a keep-alive connection the server closed while idle is the client's
 * concern (a retry), not the probe's.
 */
import http from "node:http";

export type ProbePath = "/healthz" | "/readyz";

export interface ProbeAnswer {
  /** The process's name, as given to {@link startProbes}. */
  process: string;
  path: ProbePath;
  startedAt: number;
  endedAt: number;
  status?: number;
  /** `status` of the JSON body (`ok`, `ready`, `database_unreachable`…). */
  state?: string;
  /** A network error (e.g. the process is down) or the probe's own timeout. */
  error?: string;
}

export interface Probes {
  answers: ProbeAnswer[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET `url` on a new connection; rejects when no answer came within `timeoutMs`. */
function get(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", reject);
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}

/**
 * Probes each of `processes` (name → base URL, read on every probe so a restarted process is
 * found) every `intervalMs`, giving up on an answer after `timeoutMs`.
 */
export function startProbes(
  processes: () => Record<string, string>,
  { intervalMs, timeoutMs }: { intervalMs: number; timeoutMs: number },
): Probes {
  const answers: ProbeAnswer[] = [];
  let stopped = false;
  const probeLoop = async (name: string, path: ProbePath) => {
    while (!stopped) {
      const answer: ProbeAnswer = { process: name, path, startedAt: Date.now(), endedAt: 0 };
      try {
        const response = await get(`${processes()[name]}${path}`, timeoutMs);
        answer.status = response.status;
        answer.state = (JSON.parse(response.body) as { status?: string }).status;
      } catch (error) {
        answer.error = String(error);
      }
      answer.endedAt = Date.now();
      answers.push(answer);
      await sleep(intervalMs);
    }
  };
  const loops = Object.keys(processes()).flatMap((name) => [
    probeLoop(name, "/healthz"),
    probeLoop(name, "/readyz"),
  ]);
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
