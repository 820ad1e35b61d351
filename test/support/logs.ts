// The service's log lines as a test reads them: a stream to give `startTestService({ logStream })`, keeping
// every line as written and parsed.
import { Writable } from 'node:stream';

export type LogLine = Record<string, unknown> & { level: number; msg: string };

export interface CapturedLogs {
  stream: Writable;
  lines: LogLine[];
  raw: string[];
}

export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { stream, lines, raw };
}
