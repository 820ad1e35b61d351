// `svc audit verify`: an auditor's check of an export, offline (API.md section 11.5). It reads the JSON Lines
// export line by line (an export of any length holds one line in memory), recomputes every hash and link
// with the rule the sealer applied (src/lib/audit-chain.ts), and names the first line that breaks the
// chain and how. With a checkpoint, it checks the signature against the published keys (the only thing
// fetched, when --keys is a URL) and that the export reaches the checkpoint's entry with its hash. Entries
// outside the chain (rows inserted into the database by hand, never sealed: the export flags them) fail it
// too, each named by its line.
import { accessSync, constants, createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ChainWalk, checkpointMessage, GENESIS_HASH, type SealedEntry } from '../lib/audit-chain.ts';
import { verifyText } from '../lib/signing-keys.ts';
import { CliError, type Command } from './command.ts';

/** The check found the export changed. */
const BROKEN = 1;
/** The check could not run: a file or the keys could not be read. */
const UNCHECKED = 2;

const HEX64 = /^[0-9a-f]{64}$/;
const TEXT_FIELDS = ['id', 'action', 'entity_type', 'entity_id', 'metadata', 'created_at'] as const;

type Line =
  | { outside: false; entry: SealedEntry; filtered: boolean }
  /** An entry without a seal: flagged `outside_chain` by the export, or its hash null. */
  | { outside: true; id: string; filtered: boolean };

/** One line of an export as a sealed entry or one outside the chain, or what is wrong with it. */
function parseLine(text: string): Line | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not a JSON object';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const o = value as Record<string, unknown>;
  for (const field of TEXT_FIELDS)
    if (typeof o[field] !== 'string') return `${field} is missing or not a string`;
  const filtered = o.export_filtered === true;
  if (o.outside_chain === true || o.hash === null) return { outside: true, id: o.id as string, filtered };
  if (!Number.isSafeInteger(o.sequence) || (o.sequence as number) < 1)
    return 'sequence is not a positive integer';
  for (const field of ['hash', 'prev_hash'] as const)
    if (typeof o[field] !== 'string' || !HEX64.test(o[field]))
      return `${field} is not 64 lowercase hex digits`;
  return { outside: false, entry: o as unknown as SealedEntry, filtered };
}

interface Checkpoint {
  merchant_id: string;
  mode: string;
  sequence: number;
  hash: string;
  signed_at: string;
  key_id: string;
  signature: string;
}

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read ${what} ${path}: ${(err as Error).message}`);
  }
}

/** The checkpoint as GET /developer/logs/checkpoint answers it, with or without its `data` envelope. */
function readCheckpoint(path: string): Checkpoint {
  const raw = readJson(path, 'the checkpoint') as { data?: unknown } | null;
  const c = (raw && typeof raw === 'object' && 'data' in raw ? raw.data : raw) as Record<string, unknown>;
  const strings = ['merchant_id', 'mode', 'hash', 'signed_at', 'key_id', 'signature'];
  if (!c || strings.some((k) => typeof c[k] !== 'string') || !Number.isSafeInteger(c.sequence))
    throw new CliError(`${path} is not a checkpoint: it needs ${strings.join(', ')} and sequence`);
  return c as unknown as Checkpoint;
}

type Jwk = Record<string, unknown>;

async function readKeys(source: string): Promise<Jwk[]> {
  let doc: unknown;
  if (/^https?:\/\//.test(source)) {
    try {
      const res = await fetch(source, { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      doc = await res.json();
    } catch (err) {
      throw new CliError(`cannot fetch the keys from ${source}: ${(err as Error).message}`);
    }
  } else doc = readJson(source, 'the keys');
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new CliError(`${source} is not a JWKS: it has no "keys" array`);
  return keys as Jwk[];
}

/** Why the checkpoint does not hold, or undefined when it is signed by a published key. */
function checkSignature(c: Checkpoint, keys: Jwk[]): string | undefined {
  const key = keys.find((k) => k.kid === c.key_id);
  if (!key) return `the checkpoint is not signed by a published key: no key has kid ${c.key_id}`;
  if (!verifyText(key, checkpointMessage(c), c.signature))
    return `the checkpoint's signature does not verify with key ${c.key_id}: the checkpoint was changed`;
  return undefined;
}

/** How many lines outside the chain the message names; the rest are counted. */
const OUTSIDE_NAMED = 10;

interface Outcome {
  walk: ChainWalk;
  /** The first line that breaks the chain, with what is wrong. */
  broken: string | undefined;
  /** The lines of entries outside the chain: the first OUTSIDE_NAMED, and how many in all. */
  outside: { named: { line: number; id: string }[]; count: number };
  /** The line and hash of the checkpoint's entry, when the export holds it. */
  atCheckpoint: { line: number; hash: string } | undefined;
  /** The line of the highest sequence. */
  newestLine: number;
  lines: number;
}

/**
 * Walks the export line by line and stops checking the chain at the first line that breaks it. A jump in
 * sequence is told apart by reading on: the entry expected there is elsewhere (lines moved) or nowhere (a line
 * removed). Lines outside the chain are set apart wherever they are (the export writes them last), and looked
 * for to the end of the file, past a break too, so that every one is reported.
 */
async function walkFile(path: string, checkpointSequence: number | undefined): Promise<Outcome> {
  const input = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  const o: Outcome = {
    walk: new ChainWalk(),
    broken: undefined,
    outside: { named: [], count: 0 },
    atCheckpoint: undefined,
    newestLine: 0,
    lines: 0,
  };
  let filtered: boolean | undefined;
  let blank: number | undefined;
  let gap: { sequence: number; issue: string; line: number } | undefined;
  for await (const text of input) {
    const n = ++o.lines;
    if (text === '') {
      blank ??= n;
      continue;
    }
    const line = parseLine(text);
    if (typeof line !== 'string' && line.outside) {
      if (o.outside.count++ < OUTSIDE_NAMED) o.outside.named.push({ line: n, id: line.id });
    }
    if (o.broken) continue;
    if (gap) {
      if (typeof line !== 'string' && !line.outside && line.entry.sequence === gap.sequence) {
        o.broken = `line ${gap.line}: ${gap.issue}; the entry of sequence ${gap.sequence} is on line ${n}: lines out of order`;
      }
      continue;
    }
    if (blank !== undefined) {
      o.broken = `line ${blank}: an empty line inside the export`;
      continue;
    }
    if (typeof line === 'string') {
      o.broken = `line ${n}: ${line}`;
      continue;
    }
    if (filtered === undefined) {
      filtered = line.filtered;
      o.walk = new ChainWalk({ narrowed: filtered });
    } else if (line.filtered !== filtered) {
      o.broken = `line ${n}: export_filtered differs from line 1: lines of two exports`;
      continue;
    }
    if (line.outside) continue;
    const broken = o.walk.add(line.entry, n);
    if (broken?.expected !== undefined) gap = { sequence: broken.expected, issue: broken.issue, line: n };
    else if (broken) {
      o.broken = `line ${n}: ${broken.issue}`;
    } else {
      if (line.entry.sequence === o.walk.range?.[1]) o.newestLine = n;
      if (line.entry.sequence === checkpointSequence) o.atCheckpoint = { line: n, hash: line.entry.hash };
    }
  }
  input.close();
  if (gap && !o.broken) {
    o.broken = `line ${gap.line}: ${gap.issue}; the entry of sequence ${gap.sequence} is not in the export: a removed line`;
  }
  return o;
}

/** Where the export and the checkpoint disagree, or undefined. */
function checkReach(c: Checkpoint, o: Outcome): string | undefined {
  if (o.atCheckpoint) {
    return o.atCheckpoint.hash === c.hash
      ? undefined
      : `line ${o.atCheckpoint.line}: the entry of sequence ${c.sequence} does not match the checkpoint ` +
          `(hash ${o.atCheckpoint.hash}, the checkpoint signed ${c.hash})`;
  }
  const range = o.walk.range;
  if (c.sequence === 0)
    return c.hash === GENESIS_HASH ? undefined : 'the checkpoint of sequence 0 must hash 64 zeros';
  if (o.walk.narrowed) return undefined;
  if (!range || c.sequence > range[1]) {
    return (
      `the export ends at sequence ${range?.[1] ?? 0} (line ${o.newestLine}), before the checkpoint's sequence ` +
      `${c.sequence}: entries ${(range?.[1] ?? 0) + 1} to ${c.sequence} are missing (a truncated export)`
    );
  }
  return `the checkpoint's sequence ${c.sequence} is before the export's first entry (sequence ${range[0]}): take an export that holds it`;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The lines of entries outside the chain, as one message, or undefined when there is none. */
function outsideProblem({ named, count }: Outcome['outside']): string | undefined {
  if (count === 0) return undefined;
  const lines = named.map((l) => `${l.line} (${l.id})`);
  const more = count - named.length;
  const list =
    more > 0
      ? `${lines.join(', ')} and ${more} more`
      : lines.length > 1
        ? `${lines.slice(0, -1).join(', ')} and ${lines.at(-1)!}`
        : lines[0]!;
  return (
    `${plural(count, 'line', 'lines')} ${list}: ${count} ${plural(count, 'entry is', 'entries are')} outside ` +
    `the chain: never sealed, so nothing proves ${plural(count, 'it', 'them')}; the service did not write ` +
    `${plural(count, 'it', 'them')} (${plural(count, 'a row', 'rows')} inserted into the database by hand)`
  );
}

async function verify(file: string, checkpointFile?: string, keysSource?: string): Promise<number> {
  const c = checkpointFile ? readCheckpoint(checkpointFile) : undefined;
  const keys = c && keysSource ? await readKeys(keysSource) : undefined;
  try {
    accessSync(file, constants.R_OK);
  } catch (err) {
    throw new CliError(`cannot read the export ${file}: ${(err as Error).message}`);
  }
  const o = await walkFile(file, c?.sequence);
  const problems = [
    o.broken ?? (c && (checkSignature(c, keys!) ?? checkReach(c, o))),
    outsideProblem(o.outside),
  ].filter((p) => p !== undefined);
  if (problems.length > 0) {
    process.stdout.write(problems.map((p) => `${file}: ${p}\n`).join(''));
    return BROKEN;
  }
  const range = o.walk.range;
  const out = [
    range
      ? `${o.walk.count} entries verified, sequence ${range[0]} to ${range[1]}`
      : '0 entries verified: the export is empty',
  ];
  if (o.walk.narrowed) {
    out.push(
      'The export is filtered: each entry was verified against its own prev_hash, and the order of ' +
        'sequences checked; what lies between them is not in the file to prove.',
    );
  } else if (range && range[0] > 1) {
    out.push(
      `Entries before sequence ${range[0]} are not in this export: its first entry's prev_hash is taken as given.`,
    );
  }
  if (c) {
    const held = o.atCheckpoint
      ? `matches line ${o.atCheckpoint.line}`
      : c.sequence === 0
        ? 'the empty chain'
        : 'its entry is not in this filtered export, so only its signature was checked';
    out.push(
      `Checkpoint: sequence ${c.sequence} of ${c.merchant_id} (${c.mode}), signed at ${c.signed_at} with key ` +
        `${c.key_id}: ${held}.`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

export const auditVerifyCommand: Command = {
  name: 'audit verify',
  summary: 'Check an audit log export offline: every hash, every link, and a signed checkpoint.',
  usage: 'FILE.jsonl [--checkpoint FILE.json --keys FILE|URL]',
  help: `Options:
  --checkpoint FILE.json  a checkpoint from GET /api/v1/merchant/developer/logs/checkpoint (or the
                          dashboard's export), taken before the export: the export must reach it
  --keys FILE|URL         the service's public keys (a JWKS): a file, or the URL of
                          /.well-known/svc-audit-keys (the only thing fetched); needed with --checkpoint

Reads a JSON Lines export (newest or oldest first) and recomputes the chain. Exit status: 0 and
"N entries verified, sequence A to B" when it holds; 1 naming the first line that breaks it (an edited
field, a removed, inserted or moved line, a checkpoint that the export does not reach, that does not
match, or that no published key signed), and every line of an entry outside the chain (never sealed:
inserted into the database by hand); 2 when a file or the keys cannot be read. A filtered export
proves each entry against its own prev_hash only, and says so. docs/guides/audit.md explains the rest.`,
  options: { checkpoint: { type: 'string' }, keys: { type: 'string' } },
  positionals: true,
  async run(values, positionals) {
    const checkpoint = typeof values.checkpoint === 'string' ? values.checkpoint : undefined;
    const keys = typeof values.keys === 'string' ? values.keys : undefined;
    if (positionals.length !== 1 || (checkpoint && !keys)) {
      process.stderr.write(
        positionals.length !== 1
          ? `svc audit verify: give one export file.\n`
          : 'svc audit verify: --checkpoint needs --keys (a JWKS file, or the /.well-known/svc-audit-keys URL).\n',
      );
      return UNCHECKED;
    }
    try {
      return await verify(positionals[0]!, checkpoint, keys);
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      process.stderr.write(`svc: ${err.message}\n`);
      return UNCHECKED;
    }
  },
};
