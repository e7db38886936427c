/**
 * Several replicas' logs as one: every line prefixed with its replica (`[replica 2] ...`) and
 * ordered by the `time` field of the JSON log lines. A line without one (a deploy banner, a
 * stack trace) keeps its place after the line before it in its own file.
 */
export interface ReplicaLogText {
  index: number;
  text: string;
}

function lineTime(line: string): number | undefined {
  const match = /"time":(\d{10,})/.exec(line);
  return match ? Number(match[1]) : undefined;
}

/** The lines of every replica's text, interleaved by time, each prefixed with its replica. */
export function interleaveReplicaLogs(logs: readonly ReplicaLogText[]): string[] {
  const entries: { time: number; index: number; order: number; line: string }[] = [];
  for (const log of logs) {
    let time = 0;
    const lines = log.text.replace(/\n$/, '').split('\n');
    if (log.text === '') continue;
    for (const [order, line] of lines.entries()) {
      time = lineTime(line) ?? time;
      entries.push({ time, index: log.index, order, line: `[replica ${log.index}] ${line}` });
    }
  }
  entries.sort((left, right) => left.time - right.time || left.index - right.index || left.order - right.order);
  return entries.map((entry) => entry.line);
}
