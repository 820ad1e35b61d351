// The undici Agent of the request path (the test route sends its first attempt itself), one per process
// (Context), closed with the HTTP app. The workers keep their own, closed when they stop.
import type { Agent } from 'undici';
import type { Context } from '../../../context.ts';
import { createAgent } from '../sender.ts';

const agents = new WeakMap<Context, Agent>();

export function requestAgent(ctx: Context): Agent {
  let agent = agents.get(ctx);
  if (!agent) {
    agent = createAgent({
      timeoutMs: ctx.config.webhookTimeoutMs,
      allowPrivate: ctx.config.webhookAllowPrivate,
    });
    agents.set(ctx, agent);
  }
  return agent;
}

export async function closeRequestAgent(ctx: Context): Promise<void> {
  const agent = agents.get(ctx);
  agents.delete(ctx);
  await agent?.close().catch(() => {});
}
