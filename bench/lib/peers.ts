// The job-queue peers of the delivery measures (bench/baselines/peers/): each a process serving the service's
// ingestion route over its own queue, started with a PeerSettings in BENCH_PEER.
import type { PeerSettings } from '../baselines/peers/pipeline.ts';
import { startChild, type Child } from './child.ts';

export const PEERS = {
  'graphile-worker': { script: 'baselines/peers/graphile-worker.ts', store: 'postgres' },
  'pg-boss': { script: 'baselines/peers/pg-boss.ts', store: 'postgres' },
  bullmq: { script: 'baselines/peers/bullmq.ts', store: 'redis' },
} as const;

export type PeerName = keyof typeof PEERS;
export const PEER_NAMES = Object.keys(PEERS) as PeerName[];

/** Starts the peer's process; it answers once it serves ingestion and its worker runs. */
export function startPeer(name: PeerName, settings: PeerSettings): Promise<Child> {
  return startChild(PEERS[name].script, { BENCH_PEER: JSON.stringify(settings) });
}
