// Baseline of the public read's framework share: Fastify with no plugin, no hook and no logger, one route
// answering the same bytes as the service. Between bare node:http and the service, it shows how much of the
// service's cost is Fastify's own request path, which no change inside the service can take off.
import Fastify from 'fastify';
import { serveCalls } from '../lib/child.ts';

let body = '{}';
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => reply.type('application/json; charset=utf-8').send(body));

const address = await app.listen({ port: 0, host: '127.0.0.1' });
serveCalls(
  { port: Number(new URL(address).port) },
  {
    setBody(text: string) {
      body = text;
      return body.length;
    },
  },
);
