import type { Mode } from './credentials.ts';

export interface Scope {
  readonly merchantId: string;
  readonly mode: Mode;
}
