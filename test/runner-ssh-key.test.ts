// A job of a workspace with an SSH key: `terraform init` (and only the job's own processes) get
// the key in a file of mode 0600 inside the job's own directory, named by GIT_SSH_COMMAND with
// options ssh accepts (checked with `ssh -G`, which parses them without connecting); the key
// never reaches the log, and the file goes with the job's directory. A job without a key gets
// neither. The job runs with the real terraform behind a wrapper that reports what init saw.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Job } from '../src/jobs/service.ts';
import { executeJob } from '../src/runner/execute.ts';
import type { JobInputs, JobPort } from '../src/runner/port.ts';
import { terraformSettings } from '../src/runner/terraform.ts';
import { configArchive } from './helpers/runner.ts';

const real = spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim();
const hasSsh = spawnSync('ssh', ['-V'], { encoding: 'utf8' }).status === 0;
const KEY_LINE = 'AAAAthisIsTheKeyMaterialThatMustNotBeLoggedAAAA';
const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----\r\n${KEY_LINE}\r\n-----END OPENSSH PRIVATE KEY-----`;

// What init saw: GIT_SSH_COMMAND, the key file's mode and whether it holds the key (with the
// line ends OpenSSH needs), what ssh makes of the options, and the key file itself printed (the
// log must not show it).
const WRAPPER = `#!/bin/sh
if [ "$1" = init ]; then
  echo "GIT_SSH_COMMAND=[\${GIT_SSH_COMMAND:-}]"
  if [ -n "\${GIT_SSH_COMMAND:-}" ]; then
    k=$(printf '%s' "$GIT_SSH_COMMAND" | sed -n "s/.* -i '\\([^']*\\)'.*/\\1/p")
    echo "KEYFILE=$k"
    echo "MODE=$(stat -c %a "$k") DIRMODE=$(stat -c %a "$(dirname "$k")")"
    if printf '%s\\n%s\\n%s\\n' '-----BEGIN OPENSSH PRIVATE KEY-----' '${KEY_LINE}' '-----END OPENSSH PRIVATE KEY-----' | cmp -s - "$k"; then echo SAME=yes; else echo SAME=no; fi
    cat "$k"
    if command -v ssh >/dev/null; then sh -c "$GIT_SSH_COMMAND -G git.example.test" | grep -E '^(identityfile|identitiesonly|batchmode|stricthostkeychecking|userknownhostsfile) ' | sed 's/^/SSH-G /'; fi
  fi
fi
exec "${real}" "$@"
`;

function job(): Job {
  const at = new Date().toISOString();
  return {
    id: `job-${Math.random().toString(36).slice(2)}`,
    runId: 'run-test',
    phase: 'plan',
    status: 'running',
    agentPoolId: null,
    runner: 'test',
    heartbeatAt: at,
    statusTimestamps: {},
    additions: null,
    changes: null,
    destructions: null,
    imports: null,
    logSize: 0,
    logComplete: false,
    createdAt: at,
    cancelRequestedAt: null,
  };
}

/** Runs a plan job whose inputs carry `sshKey`; its log and how it ended. */
async function run(binary: string, sshKey: string | null): Promise<{ log: string; outcome: string }> {
  const chunks: Buffer[] = [];
  let outcome = 'none';
  const inputs = (j: Job): JobInputs => ({
    job: j,
    runId: 'run-test',
    workspaceId: 'ws-test',
    isDestroy: false,
    refresh: true,
    refreshOnly: false,
    targetAddrs: [],
    replaceAddrs: [],
    archive: configArchive({ 'main.tf': 'output "x" {\n  value = 1\n}\n' }),
    state: null,
    variables: [],
    planFile: null,
    sshKey,
  });
  const port: JobPort = {
    claim: async () => undefined,
    started: async () => true,
    inputs: async (j) => inputs(j),
    log: async (_j, bytes) => void chunks.push(Buffer.from(bytes)),
    heartbeat: async () => true,
    planned: async () => void (outcome = 'planned'),
    applied: async () => void (outcome = 'applied'),
    failed: async (_j, reason) => void (outcome = `failed: ${reason}`),
  };
  const settings = terraformSettings(
    { terraformBinary: binary, terraformPluginCacheDir: null, terraformCliConfigFile: null },
    process.env.PATH ?? '/usr/bin:/bin',
  );
  await executeJob(port, job(), { settings, runner: 'test', timeoutMs: 60_000, maxLogBytes: 1024 * 1024 });
  return { log: Buffer.concat(chunks).toString('utf8'), outcome };
}

describe('a job with its workspace SSH key', { skip: real === '' ? 'terraform is not installed' : false }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-ssh-test-'));
  const wrapper = path.join(dir, 'terraform');
  writeFileSync(wrapper, WRAPPER);
  chmodSync(wrapper, 0o755);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gets GIT_SSH_COMMAND and the key in a 0600 file of its own directory, never in the log, gone after the job', async () => {
    const { log, outcome } = await run(wrapper, KEY);
    assert.equal(outcome, 'planned', log);
    const keyFile = /^KEYFILE=(.*)$/m.exec(log)?.[1];
    assert.ok(keyFile, log);
    // Inside the job's own fresh directory, not the runner's HOME or anywhere shared.
    assert.ok(keyFile.startsWith(path.join(tmpdir(), 'hangar-job-')), keyFile);
    const jobDir = keyFile.slice(0, keyFile.indexOf('/', path.join(tmpdir(), 'hangar-job-').length));
    const known = path.join(path.dirname(keyFile), 'known_hosts');
    const command = /^GIT_SSH_COMMAND=\[(.*)\]$/m.exec(log)?.[1];
    assert.equal(command, `ssh -i '${keyFile}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='${known}'`);
    assert.match(log, /^MODE=600 DIRMODE=700$/m);
    // CRLF made LF, and the final newline OpenSSH needs added.
    assert.match(log, /^SAME=yes$/m);
    assert.ok(!log.includes(KEY_LINE), 'the key reached the log');
    assert.match(log, /\(sensitive value\)/);
    if (hasSsh) {
      assert.match(log, new RegExp(`^SSH-G identityfile ${keyFile}$`, 'm'));
      assert.match(log, /^SSH-G identitiesonly yes$/m);
      assert.match(log, /^SSH-G batchmode yes$/m);
      assert.match(log, /^SSH-G stricthostkeychecking accept-new$/m);
      assert.match(log, new RegExp(`^SSH-G userknownhostsfile ${known}$`, 'm'));
    }
    // Removed with the job's directory.
    assert.equal(existsSync(keyFile), false);
    assert.equal(existsSync(jobDir), false);
  });

  it('without a key gets neither GIT_SSH_COMMAND nor a key file', async () => {
    const { log, outcome } = await run(wrapper, null);
    assert.equal(outcome, 'planned', log);
    assert.match(log, /^GIT_SSH_COMMAND=\[\]$/m);
    assert.doesNotMatch(log, /KEYFILE=/);
  });
});
