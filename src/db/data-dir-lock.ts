// One process at a time on an embedded data directory. PGlite keeps the database in memory and writes its
// files from there, so a second process on the same directory reads a stale copy and its writes are lost
// when the first process writes again: `svc merchant create` once printed ids and exited 0 for a merchant
// that never existed. The lock is a file created with O_EXCL holding the owner's pid; a file whose pid is
// no longer alive is stale (the owner was killed) and is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../lib/time.ts';

export const LOCK_FILE = 'svc.lock';

export interface LockOwner {
  pid: number;
  /** What holds it: `server` (npm start) or the CLI command. */
  role: string;
  started_at: string;
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

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws DataDirLockedError; the returned function releases it. */
export function lockDataDir(dataDir: string, role: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, role, started_at: new Date(systemClock.now()).toISOString() };
  for (let tries = 0; ; tries++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(path);
      // An unreadable file is a lock being written this instant, or the wreck of a crash mid-write: the
      // second read tells which.
      if (owner && alive(owner.pid) && owner.pid !== process.pid)
        throw new DataDirLockedError(dataDir, owner);
      if (!owner && tries === 0) continue;
      if (tries >= 2)
        throw new DataDirLockedError(dataDir, owner ?? { pid: 0, role: 'unknown', started_at: '?' });
      try {
        unlinkSync(path);
      } catch {
        // another process took the stale lock over first: the next try tells who
      }
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (readOwner(path)?.pid === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  };
}
