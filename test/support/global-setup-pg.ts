// Vitest global setup of the `pg` project: one throwaway cluster for the run, a migrated template database,
// and every test service copies the template (CREATE DATABASE ... TEMPLATE: 35-70 ms, the first ten or so of
// a run 0.2-0.8 s on a loaded 2-core machine; migrating: 0.2-0.4 s).
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { startCluster } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgBaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const cluster = await startCluster();
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query('create database svc_template');
  await admin.end();
  const template = await openDatabase({ databaseUrl: cluster.url('svc_template') });
  await template.close();
  project.provide('pgBaseUrl', cluster.baseUrl);
  return () => cluster.stop();
}
