// Baseline of the public measures: bare node:http answering the same JSON as the service, with no framework,
// no authentication and no database. The service's ratio against it is the cost of everything else.
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { serveCalls } from '../lib/child.ts';

let readBody = Buffer.from('{}');
let introspectionBody = Buffer.from('{"active":false}');

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': readBody.length,
    });
    res.end(readBody);
    return;
  }
  // The introspection baseline reads the form and answers the service's answer, as given.
  if (req.url?.endsWith('/oauth/introspect')) {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': introspectionBody.length,
      });
      res.end(introspectionBody);
    });
    return;
  }
  // The write baseline answers a fresh cart of the contract's shape, as the service does, without storing it.
  req.resume();
  req.on('end', () => {
    const now = new Date().toISOString();
    const body = JSON.stringify({
      data: {
        id: `cart_${randomBytes(15).toString('hex')}`,
        store_id: 'store_x',
        status: 'active',
        items: [],
        created_at: now,
        updated_at: now,
      },
    });
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  serveCalls(
    { port: typeof address === 'object' && address ? address.port : 0 },
    {
      setBody(body: string) {
        readBody = Buffer.from(body);
        return readBody.length;
      },
      setIntrospectionBody(body: string) {
        introspectionBody = Buffer.from(body);
        return introspectionBody.length;
      },
    },
  );
});
