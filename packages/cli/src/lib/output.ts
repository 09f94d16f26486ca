/**
 * What a command prints: human lines (colour only when stdout is a terminal and NO_COLOR is not
 * set), or with `--json` one JSON object per line for scripts. Errors go to stderr either way.
 */
export interface DeliveryLine {
  event_type: string;
  webhook_id: string;
  sequence: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error?: string | undefined;
  result: string;
}

export interface Output {
  json: boolean;
  /** A line for people (nothing in JSON mode). */
  info(line: string): void;
  /** A machine-readable record (a JSON line in JSON mode, nothing otherwise). */
  event(record: Record<string, unknown>): void;
  delivery(line: DeliveryLine): void;
  error(line: string): void;
  /** The final result of a command: pretty text, or the object as one JSON line. */
  result(text: string, record: unknown): void;
  colour: Colours;
}

export interface Colours {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export interface Sink {
  stdout(text: string): void;
  stderr(text: string): void;
  isTTY: boolean;
  env: Record<string, string | undefined>;
}

export const processSink = (): Sink => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
});

export function createOutput(json: boolean, sink: Sink): Output {
  const coloured = sink.isTTY && !json && sink.env.NO_COLOR === undefined && sink.env.TERM !== "dumb";
  const paint = (code: number) => (s: string) => (coloured ? `\u001b[${code}m${s}\u001b[0m` : s);
  const colour: Colours = {
    green: paint(32),
    red: paint(31),
    yellow: paint(33),
    dim: paint(2),
    bold: paint(1),
  };
  const line = (record: unknown) => sink.stdout(`${JSON.stringify(record)}\n`);
  return {
    json,
    colour,
    info: (text) => {
      if (!json) sink.stdout(`${text}\n`);
    },
    event: (record) => {
      if (json) line(record);
    },
    delivery: (d) => {
      if (json) return line({ type: "delivery", ...d });
      const ok = d.status_code !== null && d.status_code >= 200 && d.status_code < 300;
      const status =
        d.status_code === null
          ? colour.red("no answer")
          : (ok ? colour.green : colour.red)(String(d.status_code));
      sink.stdout(
        `${new Date().toISOString().slice(11, 19)}  ${d.event_type.padEnd(26)} ${d.webhook_id}  #${d.sequence.padEnd(3)} try ${d.attempt}  → ${status}  ${d.latency_ms} ms  ${colour.dim(d.error ? `${d.error} · ${d.result}` : d.result)}\n`,
      );
    },
    error: (text) => sink.stderr(`svc: ${text}\n`),
    result: (text, record) => (json ? line(record) : sink.stdout(text.endsWith("\n") ? text : `${text}\n`)),
  };
}
