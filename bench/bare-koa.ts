/** The baseline: a bare Koa server answering the same JSON as GET /api/health, nothing else. */
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { success: true, data: { status: 'ok', phase: 'WARMED', uptimeSeconds: Math.round(process.uptime()), version: '1.0.0' } };
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => server.close());
