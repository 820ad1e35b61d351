// The handles that run SQL, apart from how the database is opened (database.ts), so that what runs SQL
// (the bus's notify, every repository) does not depend on the opening.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../schema.ts';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Repositories take either: a use case passes its transaction, a plain read passes the database. */
export type Executor = Db | Tx;
