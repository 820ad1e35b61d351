// The test/live switch: one value for the whole dashboard, kept across reloads, sent as X-Svc-Mode.
import { useSyncExternalStore } from 'react';
import type { Mode } from './types.ts';

const KEY = 'svc.mode';
const listeners = new Set<() => void>();

export function getMode(): Mode {
  return localStorage.getItem(KEY) === 'live' ? 'live' : 'test';
}

export function setMode(mode: Mode): void {
  localStorage.setItem(KEY, mode);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useMode(): Mode {
  return useSyncExternalStore(subscribe, getMode);
}
