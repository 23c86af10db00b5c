// `terraform login` end to end: the real Terraform CLI against a Hangar process started over
// HTTPS (a throw-away certificate authority, trusted through SSL_CERT_FILE), and real Chromium as
// the person's browser. Terraform finds login.v1 in service discovery and prints the
// authorization URL; the browser signs in with the password `hangar user password` set, and
// clicks Authorize; Terraform trades the code and saves the token, which then works against the
// API. Nothing on the system changes: HOME is a temporary directory, and the "browser" Terraform
// tries to launch is a stub that does nothing (the test opens the URL Terraform prints).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangar, scratchServer } from './helpers/process.ts';
import { terraformE2eSkip, tlsApi } from './helpers/terraform-cli.ts';
import { makeCertificates, type TestCertificates } from './helpers/tls.ts';
import { CHROMIUM, openBrowser } from './helpers/browser.ts';

const PASSWORD = 'a long enough password for admin';

const skip = terraformE2eSkip() || (spawnSync(CHROMIUM, ['--version']).status !== 0 ? `Chromium is not installed at ${CHROMIUM} (set HANGAR_CHROMIUM)` : false);
if (skip) console.log(`# SKIP terraform login end-to-end: ${skip}`);

const api = tlsApi;

/** Terraform processes under way: none is left behind, whatever a test does. */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** `terraform login host` running, answering its prompt; resolves the URL it prints and, later, how it ended. */
function terraformLogin(host: string, home: string, env: Record<string, string>) {
  const child = spawn('terraform', ['login', host], { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] });
  // The answer to "Do you want to proceed?" (only 'yes' is accepted), waiting in the pipe until asked.
  child.stdin.write('yes\n');
  let output = '';
  const ended = new Promise<{ status: number | null; output: string }>((resolve) => child.on('close', (status) => resolve({ status, output })));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /(https:\/\/\S+\/app\/oauth2\/authorize\?\S+)/.exec(output);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void ended.then(({ status }) => reject(new Error(`terraform login ended (${status}) before printing a URL:\n${output}`)));
  });
  running.add(child);
  child.on('close', () => running.delete(child));
  return { child, url, ended };
}

for (const dialect of dialects()) {
  describe(`terraform login end-to-end [${dialect}]`, { skip }, () => {
    const home = mkdtempSync(path.join(tmpdir(), 'hangar-tflogin-'));
    const start = scratchServer(dialect, POSTGRES_URL);
    let certs: TestCertificates;
    let ca: Buffer;
    let host: string;
    let browser: Browser;
    let env: Record<string, string>;

    before(async () => {
      certs = makeCertificates();
      ca = readFileSync(certs.caFile);
      const started = await start({
        HANGAR_TLS_CERT_FILE: certs.certFile,
        HANGAR_TLS_KEY_FILE: certs.keyFile,
        HANGAR_LOG_LEVEL: 'warn',
        HANGAR_RATE_LIMIT: '0',
      });
      host = `localhost:${new URL(started.server.url).port}`;
      // What the new user runs on the server, and nothing else.
      const boot = hangar(['bootstrap'], started.env);
      assert.equal(boot.status, 0, boot.stderr);
      const password = hangar(['user', 'password', 'admin'], started.env, `${PASSWORD}\n`);
      assert.equal(password.status, 0, password.stderr);
      // The browser Terraform launches: a stub that opens nothing (Terraform prints the URL too).
      // Where Terraform keeps its credentials file (it does not create the directory itself).
      mkdirSync(path.join(home, '.terraform.d'));
      const bin = path.join(home, 'bin');
      mkdirSync(bin);
      for (const name of ['xdg-open', 'x-www-browser', 'www-browser']) {
        writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n');
        chmodSync(path.join(bin, name), 0o755);
      }
      env = {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOME: home,
        SSL_CERT_FILE: certs.caFile,
        CHECKPOINT_DISABLE: '1',
        NO_COLOR: '1',
      };
      browser = await openBrowser();
    });
    after(async () => {
      await browser?.close();
      rmSync(home, { recursive: true, force: true });
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    it('signs in in the browser, authorizes, and leaves Terraform a token that works against the API', { timeout: 240_000 }, async () => {
      const login = terraformLogin(host, home, env);
      const url = new URL(await login.url);
      assert.equal(url.host, host);
      assert.equal(url.searchParams.get('client_id'), 'terraform-cli');
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.match(url.searchParams.get('redirect_uri')!, /^http:\/\/localhost:100(0\d|10)\/login$/);

      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(url.href);
      // Not signed in: the sign-in page first, then back to the authorization page.
      assert.equal(new URL(page.url()).pathname, '/app/sign-in');
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname === '/app/oauth2/authorize');
      const text = await page.locator('main').innerText();
      assert.match(text, /Terraform CLI/);
      assert.match(text, new RegExp(`act as admin on ${host.replace('.', '\\.')}`));
      assert.deepEqual(problems, []);
      const toTerraform = page.waitForRequest((r) => new URL(r.url()).hostname === 'localhost' && new URL(r.url()).pathname === '/login');
      await page.getByRole('button', { name: 'Authorize' }).click();
      // To Terraform's own listener on localhost, with a code and Terraform's state. (Terraform
      // closes the listener as soon as it has the code, sometimes before its page is delivered:
      // the browser's side of that is not the test's concern.)
      const answer = new URL((await toTerraform).url());
      assert.ok(answer.searchParams.get('code'));
      assert.equal(answer.searchParams.get('state'), url.searchParams.get('state'));
      await context.close();

      const { status, output } = await login.ended;
      assert.equal(status, 0, output);
      assert.match(output, /Success!/);
      const saved = JSON.parse(readFileSync(path.join(home, '.terraform.d', 'credentials.tfrc.json'), 'utf8'));
      const token = saved.credentials[host].token as string;
      assert.match(token, /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/);
      const me = await api(`https://${host}/api/v2/account/details`, 'GET', token, ca);
      assert.equal(me.status, 200);
      assert.equal(me.body.data.attributes.username, 'admin');
      // The token is named after the login, among the user's tokens.
      const tokens = await api(`https://${host}/api/v2/users/${me.body.data.id}/authentication-tokens`, 'GET', token, ca);
      assert.ok(tokens.body.data.some((t: any) => /^terraform login /.test(t.attributes.description)));
      // And it does what a user token does: an organization and a project.
      const org = `login-${dialect}`;
      const created = await api(`https://${host}/api/v2/organizations`, 'POST', token, ca, {
        data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } },
      });
      assert.equal(created.status, 201);
      const project = await api(`https://${host}/api/v2/organizations/${org}/projects`, 'POST', token, ca, {
        data: { type: 'projects', attributes: { name: 'first' } },
      });
      assert.equal(project.status, 201);
    });

    it('leaves Terraform without a token when the person cancels', { timeout: 240_000 }, async () => {
      rmSync(path.join(home, '.terraform.d'), { recursive: true, force: true });
      mkdirSync(path.join(home, '.terraform.d'));
      const login = terraformLogin(host, home, env);
      const url = await login.url;
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(url);
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const toTerraform = page.waitForRequest((r) => new URL(r.url()).hostname === 'localhost' && new URL(r.url()).pathname === '/login');
      await page.getByRole('button', { name: 'Cancel' }).click();
      const answer = new URL((await toTerraform).url());
      assert.equal(answer.searchParams.get('error'), 'access_denied');
      assert.equal(answer.searchParams.get('code'), null);
      await context.close();
      // Terraform's listener gets `error=access_denied` and no code: it answers 400 and keeps
      // waiting, so the test ends it.
      login.child.kill('SIGKILL');
      const { output } = await login.ended;
      assert.doesNotMatch(output, /Success!/);
      assert.throws(() => readFileSync(path.join(home, '.terraform.d', 'credentials.tfrc.json')), { code: 'ENOENT' });
    });
  });
}
