// What bounds each row, by row name: the line docs/performance.md prints under a row that is short or
// undecided (bench/tools/performance-doc.ts). Kept here, next to the measures, so that the document is
// regenerated from a run and this map, never edited by hand. Each line says what the figure is made of and
// what was measured about it, with the pass of docs/performance-history.md that measured it; when a change
// moves a row, the line moves with it in the same commit.

export const BOUNDS: Readonly<Record<string, string>> = {
  'public read CPU/request':
    "CPU in the service's Node process; the database's share is the request log's (see the request-log rows). " +
    'Since the contract runs as one onRequest step (docs/decisions/0220-public-contract-in-one-step.md: request id, ' +
    'CORS, mode, security headers and the bearer check in one call; counter request ids; loggers made on first ' +
    'use; metrics as plain numbers) the service costs 2.9-3.7x Fastify alone answering the same bytes (two full ' +
    'runs of 2026-12-02), from 2.95x: what remains per call is the cached bearer check (a SHA-256 and a map ' +
    "lookup), the request log's entry made on the event loop (about 13 us, the recording rows), the answer's " +
    'serialisation and two onResponse hooks (metrics, recorder). Batching the entries off the event loop is the next step.',
  'public read CPU/request, limiter in memory':
    'A Map lookup and two header strings per request; the figure is within the rounds of the same service ' +
    'with the limiter off, and 5% of a 20-40 us read is 1-2 us: rounds on a shared host straddle it.',
  'public read CPU/request, limiter through Redis':
    "One Redis round trip per lease (about 100 ms of the rate), not per request, and redis-server's own CPU, " +
    'which the row counts on the service side.',
  'public read CPU/request, request log on':
    'About 13 us per recorded call: 2-3 us in Node (the COPY text, off the heap since the twelfth pass) and ' +
    '5.5-5.7 us in PostgreSQL (the row, its two index entries, WAL). A read costs about 21 us, so 5% would need ' +
    'recording under 1-2 us a call, which no row per call with the two indexes the reads need reaches (twelfth pass).',
  'public write CPU/request, request log on':
    'The same 11-13 us per recorded call, next to a cart write of 350-640 us: 2-3%, within the rounds of a shared host.',
  'introspection CPU/request, secret key':
    'A form POST through Fastify: the internal-token check, the form parser and the cached verification, no ' +
    "database on a warm credential: the public read's per-request costs plus body parsing; 2.4-2.8x bare in the " +
    'run after the one contract step (docs/decisions/0220-public-contract-in-one-step.md), 3.2-3.9x in the run before it.',
  'introspection CPU/request, publishable key': 'As the secret key: the same path, a different cache entry.',
  'introspection CPU/request, access token':
    'As the secret key: the same path, the token cache instead of the key cache.',
  'token refresh CPU/request':
    'One SQL statement per rotation, prepared and batched: it writes the rotated token, two new tokens, the audit ' +
    'entry, its chain queue row and its counters, about fifteen index entries and their WAL (Node 0.13-0.20 ms + ' +
    'PostgreSQL 0.22-0.43 ms in earlier passes), where the peer runs many small statements.',
  'code exchange CPU/request':
    'One named statement shared by the exchanges waiting at that moment, which checks the code itself ' +
    '(docs/decisions/0210-code-exchange-checked-in-its-statement.md): the code marked used, the family, two tokens, ' +
    'the audit entry with its queue row and counters, and their foreign-key checks, planned generically on the ' +
    "token endpoint's pool (src/db/prepared.ts).",
  'code exchange CPU/request vs oidc-provider':
    "0.47x and 0.56x of the peer's CPU per exchange in the medians of two full runs (rounds 0.39-0.69): at or " +
    "under the issue's 0.6x, over this row's bound in a slow round. The exchange is one statement and one round " +
    "trip (docs/decisions/0210-code-exchange-checked-in-its-statement.md); what remains is the refresh's cost " +
    "plus the code's update and the family's insert, and in Node the HTTP request with its hooks and GC.",
  'audit page p99':
    'One index range scan of 51 rows with the count on its rows, one round trip: p50 2-4 ms. The p99 is four ' +
    'readers on two shared cores: 11-19 ms on a quiet host, 45-300 ms at load average 10-14 (fourth pass); the ' +
    'CPU per page row is the cost.',
  'audit page webhook.* p99': 'As the first page: the family index gives the same 51-row range.',
  'audit page deep cursor p99':
    'As the first page: the cursor starts the same range scan 270,000 entries in.',
  'audit export (CSV) peak RSS':
    "The export streams; the peak is the process's resident set when it starts (what earlier measures left in the " +
    "allocator) plus the stream's buffers.",
  [`audit sealer trail at 2000/s p99`]:
    'The sealer chains the queue in batches on one connection; the trail grows when a batch takes longer than ' +
    'the writes it follows, which on a starved host it does.',
  'delivery throughput':
    "The service's side includes ingestion, an HTTP request and a group-committed statement per event, which the " +
    'baseline does not pay; the drain ends within a few hundred ms of the last ingestion, so the figure reads ' +
    'about the ingestion rate (seventh pass). CPU per delivery is the cost row.',
  'delivery latency p50':
    'Ingestion capacity and the wake-up path: at 500 events/s the service needs about 40% of the machine; when ' +
    'neighbours take more, the queue and the latency grow (sixth pass).',
  'delivery latency p99':
    'As the p50, and the tail: on the slower AMD host a stall about 10 s in and mark-compacts every 1.5 s made ' +
    'a p99 of 127-271 ms; on the Intel host 26 ms with a 49 ms worst (seventh pass).',
  'fan-out 1,000 webhooks':
    'One statement, a PL/pgSQL function with cached plans, inserting the event and 1,000 deliveries.',
  'fan-out 1,000 webhooks, each filtered':
    'The same statement with each target judged by svc_payload_matches (PL/pgSQL since migration 0171, about 27 us ' +
    'a target with the body parsed per target): 279 ms as the SQL function, 144 ms after, on a busy host ' +
    '(docs/decisions/0145-payload-filters-in-the-fan-out.md); parsing the body once per event is the next step.',
  'replay queue rate':
    'Batches of 1,000 rows a statement, each locking the replay row and inserting its deliveries parked ' +
    '(docs/decisions/0146-replays-behind-live-deliveries.md): 4,385 a second on a busy host.',
  'live delivery latency p50 during a replay':
    'The claim takes live deliveries first (0146); what remains is the two cores shared with the replay being ' +
    'sent, 3,000 deliveries within the round. The row swings with the host: back to back on 2026-12-02, ' +
    '`--only replay` gave 2.96x (2.38-3.96) on the commit before the prepared claim and 1.8x (1.05-11.9) after ' +
    'it, and two full runs 11x and 2.3x. Pacing a replay to a share of the claim is the design to try.',
  'fan-out to 1,000 app webhooks':
    "The same statement, the webhooks found through the merchant's 1,000 grants: 1.21-1.43x the merchant's own " +
    'measured on the statement alone (docs/decisions/0108-app-fan-out-in-the-outbox.md).',
  'app delivery throughput, 10,000 installs':
    'The events spread over 10,000 installing stores; 0.56-1.54 of the own webhook across runs on a loaded host ' +
    '(docs/decisions/0108-app-fan-out-in-the-outbox.md): the rate follows what the machine gives the delivery workers.',
  'ingestion p99, 50 installed apps':
    '51 deliveries committed with each event instead of 1; at 10 events/s a round has 50 answers, so its p99 is ' +
    "its worst one, and the p99 of both sides moves 2-3x with the machine's load (docs/decisions/0108-app-fan-out-in-the-outbox.md).",
  'per_object throughput (1,000 keys)':
    "A per_object webhook holds an object's key while its delivery is in flight: 1,000 keys under 32 slots.",
  'paced endpoint: settled after':
    'The pace law (docs/decisions/0116-pace-law.md): a second of grace after a decrease, refined ' +
    "by that second's successes; it settled at once at 93-100/s in the tenth pass.",
  'paced endpoint: deliveries/s after 10 s':
    'As "settled after": the learned pace, held while the backlog lasts.',
  'paced endpoint: attempts/s after 10 s': 'As "settled after": attempts beyond 100/s are the 429s.',
  'paced endpoint: 429s after 10 s': 'As "settled after": 0.39% refused in the tenth pass.',
  'webhooks list (health) p99':
    'One statement with a lateral range of the (webhook_id, id) index per webhook, bounded to the last day by ' +
    'the ids; about 6 ms of CPU a page of 100, Node and PostgreSQL (third pass). The p99 is scheduling when ' +
    'neighbours take the cores.',
  'e2e throughput vs graphile-worker':
    'Under load every pipeline delivers at 72-95% of the rate at which it took the events in, so the ratio ' +
    'follows the two ingestions; graphile-worker runs a statement per job to add, take and complete it.',
  'e2e throughput vs pg-boss':
    "As graphile-worker: the ratio follows ingestion; pg-boss's batched statements cost PostgreSQL 4-5x the " +
    "service's per delivery.",
  'e2e throughput vs bullmq':
    "BullMQ does a job's bookkeeping in redis-server's memory, in Lua, and keeps nothing after success: 0.51-0.67 " +
    'ms per delivery against 0.63-0.76 ms for the service, which records the event, every attempt and answer.',
  'e2e throughput vs graphile-worker, 10% failing once':
    'As without failures, and the retries: a new graphile-worker job per retry, a row update in the service.',
  'e2e throughput vs pg-boss, 10% failing once':
    'As without failures, and the retries (a fixed retry delay in pg-boss).',
  'e2e throughput vs bullmq, 10% failing once':
    'As without failures, and the retries (a custom backoff in BullMQ, the same schedule and jitter).',
  'crash: deliveries lost, service':
    'Every acknowledged event is committed with its deliveries before the 202; a lapsed lease is claimed again at ' +
    'the next poll. The SIGKILL test in test/system asserts the same.',
  'embedded idle RSS after start':
    "Node's ~150 MB plus PGlite's: making a database takes its WebAssembly memory to about 1.1 GB, so a child " +
    "process makes it; what stays is PGlite's heap and buffers and V8's optimised code for PGlite's hot " +
    'functions (258-266 MB in the twelfth pass, with MALLOC_MMAP_THRESHOLD_ giving large frees back).',
  'embedded idle RSS after 2,000 requests':
    "As after start, plus what the requests leave in PGlite's heap and glibc's arenas (284-305 MB after 10,000 requests in the twelfth pass).",
  'memory peak RSS':
    "Reached late in the run: what the process keeps from the measures before, not one measure's need. With " +
    'caches bounded by bytes and unpooled buffers (docs/decisions/0215-caches-bounded-by-bytes.md) two full runs ' +
    'of 2026-12-02 peaked at 254 and 287 MB (327-339 MB before), the second during delivery-pace-order; the ' +
    "embedded process's idle rows are under 250 MB. What remains at the peak: V8's young generation, the old " +
    "space's modules and compiled schemas (about 55 MB from start), undici's and pg's buffers under load, and " +
    "glibc's arenas.",
};
