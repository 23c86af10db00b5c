// The baseline every figure is divided by: a bare Fastify server on the same machine answering
// with the same response body from memory (no database, no authentication, no validation).
import Fastify from 'fastify';

const body = process.env.BASELINE_BODY ?? '{}';
const app = Fastify({ logger: false });
app.get('/baseline', async (_request, reply) => reply.type('application/vnd.api+json').send(body));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
