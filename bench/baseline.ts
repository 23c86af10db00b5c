// The baseline every figure is divided by: a bare Fastify server answering each scenario's
// response body from memory (no database, no authentication), in a process of its own as Hangar
// is. Its POST routes parse the same JSON body as the Hangar route they stand for, validated by
// the same shape of schema, so that what is left between the two is Hangar's own work. Routes come from the file BASELINE_BODIES:
// { "<name>": { "method": "GET" | "POST", "status"?, "contentType", "body", "schema"? } }.
// As Hangar does, first (src/ops/tick-maps.ts): without it this server, too, may draw nextTick's
// slow path at start-up or after a quiet spell, and every ratio would flatter Hangar by it.
import '../src/ops/tick-maps.ts';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

interface Route {
  method: 'GET' | 'POST';
  status?: number;
  contentType: string;
  body: string;
  schema?: object;
}

const routes = (process.env.BASELINE_BODIES ? JSON.parse(readFileSync(process.env.BASELINE_BODIES, 'utf8')) : {}) as Record<string, Route>;
const app = Fastify({ logger: false });
// JSON:API bodies arrive as application/vnd.api+json: parse them as Fastify parses JSON.
app.addContentTypeParser('application/vnd.api+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
for (const [name, r] of Object.entries(routes)) {
  app.route({
    method: r.method,
    url: `/${name}`,
    ...(r.schema ? { schema: { body: r.schema } } : {}),
    handler: async (_request, reply) =>
      reply
        .code(r.status ?? 200)
        .type(r.contentType)
        .send(r.body),
  });
}
// BASELINE_LOG: a file served as a log URL serves a log (bench/runs.ts), `offset`/`limit` over its bytes.
if (process.env.BASELINE_LOG) {
  const log = readFileSync(process.env.BASELINE_LOG);
  app.get('/log', async (request, reply) => {
    const query = request.query as { offset?: string; limit?: string };
    const offset = Number(query.offset ?? 0);
    const limit = Number(query.limit ?? 1024 * 1024);
    return reply
      .code(200)
      .type('text/plain')
      .send(log.subarray(offset, offset + limit));
  });
}
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
