// `npm run bench:web`: the web UI's two goals (issue 30), on the real server and a fresh SQLite
// database. (1) The project list page rendered for a person costs at most 3× the server CPU per
// request of the JSON API's same page (`GET /api/v2/organizations/:org/projects`, 20 projects):
// both measured on the same server, interleaved, three rounds, medians. (2) The first page's
// transferred weight (the HTML and its style sheet and script, compressed as a browser asks)
// is at most 150 KB. Exits 1 when a goal is missed.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hangarCli, measure, median, startHangar, type Proc } from './lib.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const PASSWORD = 'bench web password 1234';
const REQUESTS = process.argv.includes('--quick') ? 300 : 2000;
const ROUNDS = 3;
const CPU_RATIO_GOAL = 3;
const WEIGHT_GOAL_KB = 150;

function setPassword(env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(ROOT, 'src/main.ts'), 'user', 'password', 'admin'], { env: { ...process.env, ...env } }, (e) =>
      e ? reject(e) : resolve(),
    );
    child.stdin!.end(`${PASSWORD}\n`);
  });
}

/** A raw GET: status, headers and the bytes as they travelled (not decompressed). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

async function api(server: Proc, token: string, method: string, url: string, body: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
}

async function signIn(server: Proc): Promise<string> {
  const form = await fetch(`${server.url}/app/sign-in`);
  const formCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await form.text())![1]!;
  const res = await fetch(`${server.url}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ _csrf: csrf, username: 'admin', password: PASSWORD }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('hangar_session='));
  if (res.status !== 303 || !session) throw new Error(`sign-in failed: ${res.status}`);
  return session.split(';')[0]!;
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-bench-web-'));
  const env = { HANGAR_DATA_DIR: dataDir };
  let server: Proc | undefined;
  try {
    const token = (await hangarCli(['bootstrap'], env)).split('\n').pop()!.trim();
    await setPassword(env);
    server = await startHangar(env);
    const org = 'bench-web';
    await api(server, token, 'POST', '/api/v2/organizations', { data: { type: 'organizations', attributes: { name: org, email: 'bench@web.test' } } });
    for (let i = 0; i < 20; i++) {
      await api(server, token, 'POST', `/api/v2/organizations/${org}/projects`, {
        data: { type: 'projects', attributes: { name: `project-${String(i).padStart(2, '0')}`, description: 'A project of the bench' } },
      });
    }
    const cookie = await signIn(server);
    const page = { url: `${server.url}/app/${org}/projects`, headers: { cookie } };
    const json = { url: `${server.url}/api/v2/organizations/${org}/projects`, headers: { authorization: `Bearer ${token}` } };
    // Warm-up: V8 optimizes both before anything counts.
    await measure(server.pid, page, REQUESTS);
    await measure(server.pid, json, REQUESTS);
    const pageCpu: number[] = [];
    const jsonCpu: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const p = await measure(server.pid, page, REQUESTS);
      const j = await measure(server.pid, json, REQUESTS);
      if (p.non2xx || j.non2xx || p.errors || j.errors) throw new Error(`failed requests: page ${p.non2xx + p.errors}, API ${j.non2xx + j.errors}`);
      pageCpu.push(p.cpuUs / p.requests);
      jsonCpu.push(j.cpuUs / j.requests);
    }
    const ratio = median(pageCpu) / median(jsonCpu);

    // What a browser fetches for its first page, compressed as it asks.
    const accept = { 'accept-encoding': 'gzip, deflate, br' };
    const html = await get(page.url, { ...page.headers, ...accept });
    const assets = [...html.bytes.toString('utf8').matchAll(/(?:href|src)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    let bytes = html.bytes.length;
    for (const asset of assets) bytes += (await get(`${server.url}${asset}`, accept)).bytes.length;
    const kb = bytes / 1024;

    const cpuOk = ratio <= CPU_RATIO_GOAL;
    const weightOk = kb <= WEIGHT_GOAL_KB;
    console.log(`project list page: ${median(pageCpu).toFixed(0)} µs CPU per request; JSON API: ${median(jsonCpu).toFixed(0)} µs`);
    console.log(`${cpuOk ? 'ok  ' : 'MISS'} page / API CPU per request: ${ratio.toFixed(2)}× (goal ≤ ${CPU_RATIO_GOAL}×)`);
    console.log(`${weightOk ? 'ok  ' : 'MISS'} first page transferred: ${kb.toFixed(1)} KB in ${assets.length + 1} files (goal ≤ ${WEIGHT_GOAL_KB} KB)`);
    if (!cpuOk || !weightOk) process.exitCode = 1;
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
