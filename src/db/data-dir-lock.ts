// One process at a time on an embedded data directory. PGlite keeps the database in memory and writes its
// files from there, so a second process on the same directory reads a stale copy and its writes are lost
// when the first process writes again: `svc merchant create` once printed ids and exited 0 for a merchant
// that never existed. The lock is a file holding the owner's pid; a file whose pid is no longer alive is
// stale (the owner was killed) and is taken over.
//
// Every file here appears whole or not at all: it is written under a name of its own, then linked (create,
// failing if the name exists) or renamed (replace) into place. A stale lock is never deleted: deleting it let
// two processes take it over at once (each deleted the dead owner's file, and the second delete removed the
// first one's new lock: both held it in 16 of 40 rounds). Instead, a process first claims that one stale lock
// by creating a claim file named after it, which only one process can create; the claimer checks the lock is
// still the stale one and renames its own lock over it. A claimer that died in between leaves its claim to
// the next one (`<lock>.<stale lock's id>.2`, and so on).
import { createHash, randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemClock } from '../lib/time.ts';

export const LOCK_FILE = 'svc.lock';

export interface LockOwner {
  pid: number;
  /** What holds it: `server` (npm start) or the CLI command. */
  role: string;
  started_at: string;
  /** This holding of the lock, whatever the pid (a restarted container gets the same pid again). */
  token?: string;
}

export class DataDirLockedError extends Error {
  readonly owner: LockOwner;
  readonly dataDir: string;
  constructor(dataDir: string, owner: LockOwner) {
    super(
      `the embedded database in ${dataDir} is in use by another process: ${owner.role} (pid ${owner.pid}, since ${owner.started_at}). ` +
        `One process at a time may open it. Stop that process first, or run every process against PostgreSQL (DATABASE_URL).`,
    );
    this.name = 'DataDirLockedError';
    this.owner = owner;
    this.dataDir = dataDir;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Another process that is running: a lock or claim of our own pid was left by an earlier life of it. */
const live = (owner: LockOwner | undefined): owner is LockOwner =>
  owner !== undefined && owner.pid !== process.pid && alive(owner.pid);

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if (!missing(err)) throw err;
  }
}

interface Held {
  owner: LockOwner | undefined;
  /** Names this lock file among the ones the directory has had: its token, or a digest of what it holds. */
  id: string;
}

/** The lock or claim file at `path`, undefined when there is none; an unreadable owner is a dead one. */
function read(path: string): Held | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
  let owner: LockOwner | undefined;
  try {
    const parsed = JSON.parse(text) as LockOwner;
    if (Number.isInteger(parsed.pid)) owner = parsed;
  } catch {
    // written by a crash of an older version that wrote in place: stale
  }
  const id = owner?.token ?? createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { owner, id };
}

/** `me` written under a name of its own, beside `path`: ready to be linked or renamed into place. */
function staged(path: string, me: LockOwner): string {
  const temp = `${path}.${me.token}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, JSON.stringify(me), { mode: 0o644 });
  return temp;
}

/** Creates `path` holding `me`, or answers false when it exists. */
function create(path: string, me: LockOwner): boolean {
  const temp = staged(path, me);
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temp);
  }
}

/**
 * Puts `me` in place of the stale lock `stale`: true when taken; false when the lock changed meanwhile (read
 * it again); DataDirLockedError when a live process is taking it over.
 */
function takeOver(dataDir: string, path: string, stale: Held, me: LockOwner): boolean {
  const dir = dirname(path);
  const prefix = `${basename(path)}.${stale.id}.`;
  for (let n = 1; ; n++) {
    const claim = join(dir, `${prefix}${n}`);
    if (!create(claim, me)) {
      const claimer = read(claim)?.owner;
      if (live(claimer)) throw new DataDirLockedError(dataDir, claimer);
      continue; // its claimer died, or took the lock and removed its claim: the next claim tells
    }
    // A claimer that took the lock removes its claims only once its lock is in place: whoever claims after
    // that finds the lock changed here.
    if (read(path)?.id !== stale.id) {
      remove(claim);
      return false;
    }
    renameSync(staged(path, me), path);
    for (const name of readdirSync(dir)) {
      if (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))) remove(join(dir, name));
    }
    return read(path)?.id === me.token;
  }
}

/** Takes the lock or throws DataDirLockedError; the returned function releases it. */
export function lockDataDir(dataDir: string, role: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const me: LockOwner = {
    pid: process.pid,
    role,
    started_at: new Date(systemClock.now()).toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  for (let tries = 0; ; tries++) {
    // Changed under us each time: other processes keep taking and releasing it.
    if (tries === 10)
      throw new DataDirLockedError(
        dataDir,
        read(path)?.owner ?? { pid: 0, role: 'unknown', started_at: '?' },
      );
    if (create(path, me)) break;
    const held = read(path);
    if (!held) continue; // released just now
    if (live(held.owner)) throw new DataDirLockedError(dataDir, held.owner);
    if (takeOver(dataDir, path, held, me)) break;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (read(path)?.id === me.token) remove(path);
  };
}
