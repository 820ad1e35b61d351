// Every measure of `npm run bench`, in the order of a full run.
import type { Measure } from '../lib/bench.ts';
import { publicRead } from './public-read.ts';
import { publicReadLimited } from './public-read-limited.ts';
import { publicWrite } from './public-write.ts';
import { requestLogs } from './request-logs.ts';
import { introspection } from './introspection.ts';
import { token } from './token.ts';
import { audit } from './audit.ts';
import { auditSealer } from './audit-sealer.ts';
import { deliveryThroughput } from './delivery-throughput.ts';
import { deliveryLatency } from './delivery-latency.ts';
import { fanout } from './fanout.ts';
import { replay } from './replay.ts';
import { appIngestion, appThroughput } from './app-webhooks.ts';
import { deliveryPaceOrder } from './delivery-pace-order.ts';
import { memory } from './memory.ts';
import { webhooksList } from './webhooks-list.ts';
import { fleet } from './fleet.ts';
import { replicaReads } from './replica-reads.ts';
import { peers } from './peers.ts';
import { crashMeasure } from './crash.ts';
import { embedded } from './embedded.ts';

// Memory last: it reports the peak over everything before it.
export const MEASURES: readonly Measure[] = [
  publicRead,
  publicReadLimited,
  publicWrite,
  requestLogs,
  introspection,
  token,
  audit,
  auditSealer,
  deliveryThroughput,
  deliveryLatency,
  fanout,
  replay,
  appThroughput,
  appIngestion,
  deliveryPaceOrder,
  webhooksList,
  fleet,
  replicaReads,
  peers,
  crashMeasure,
  embedded,
  memory,
];
