// Run by openDatabase as a child process, under the data directory's lock that its parent holds: makes the
// embedded database in a new data directory (initdb, then the migrations) and exits, and the memory that
// took ends with the process.
import { openDatabase, openPglite } from './database.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('make-embedded: a data directory is required');
const database = await openDatabase({ pglite: await openPglite(dataDir) });
await database.close();
