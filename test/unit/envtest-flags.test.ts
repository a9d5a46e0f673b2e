/**
 * envtest's flags per binary version, without the binaries: the table's choice for kube-apiserver,
 * kube-controller-manager, kube-scheduler, the CRD apiserver and etcd at 1.20, 1.24, 1.30 and 1.36; the version read
 * from what each kind of binary prints (stand-in scripts print it); and `Envtest.start` handing a stand-in etcd and
 * apiserver the flags of the version they report. The real binaries start in test/integration/envtest-profiles.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { VERSIONED_FLAGS, versionedFlags, type VersionedBinary } from '@kubegen/runtime/internal/testing/envtest/envtest-flags.js';
import { binaryVersion, parseVersionOutput } from '@kubegen/runtime/internal/testing/envtest/envtest-versions.js';
import { compareReleaseVersions, parseReleaseVersion } from '@kubegen/runtime/internal/release-version.js';

const v = (text: string) => {
  const parsed = parseReleaseVersion(text);
  assert.ok(parsed, text);
  return parsed;
};

/** What each binary gets at each Kubernetes release (etcd: the release each Kubernetes version ships with). */
describe('versioned flags', () => {
  const at = (binary: VersionedBinary, version: string): string[] => versionedFlags(binary, v(version));

  it('kube-apiserver: --insecure-port=0 only before 1.20 (0 by default from 1.20, gone in 1.24)', () => {
    assert.deepEqual(at('kube-apiserver', '1.19.16'), ['--insecure-port=0']);
    for (const version of ['1.20.2', '1.24.0', '1.30.0', '1.36.4']) assert.deepEqual(at('kube-apiserver', version), [], version);
  });

  it('kube-controller-manager: --port=0 before 1.22; kube-scheduler: before 1.23; neither from 1.24, which refuses them', () => {
    assert.deepEqual(at('kube-controller-manager', '1.20.2'), ['--port=0']);
    assert.deepEqual(at('kube-controller-manager', '1.21.14'), ['--port=0']);
    assert.deepEqual(at('kube-controller-manager', '1.22.0'), []);
    assert.deepEqual(at('kube-scheduler', '1.20.2'), ['--port=0']);
    assert.deepEqual(at('kube-scheduler', '1.22.17'), ['--port=0']);
    for (const version of ['1.23.0', '1.24.0', '1.30.0', '1.36.4']) {
      assert.deepEqual(at('kube-controller-manager', version), [], version);
      assert.deepEqual(at('kube-scheduler', version), [], version);
    }
  });

  it('apiextensions-apiserver: the admission plugins and the feature gate its version has, as one list flag each', () => {
    const base = 'NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook';
    assert.deepEqual(at('apiextensions-apiserver', '1.20.2'), [`--disable-admission-plugins=${base}`]);
    assert.deepEqual(at('apiextensions-apiserver', '1.24.0'), [`--disable-admission-plugins=${base}`]);
    assert.deepEqual(at('apiextensions-apiserver', '1.30.0'), [`--disable-admission-plugins=${base},ValidatingAdmissionPolicy`]);
    assert.deepEqual(at('apiextensions-apiserver', '1.35.0'), [`--disable-admission-plugins=${base},ValidatingAdmissionPolicy,MutatingAdmissionPolicy`]);
    assert.deepEqual(at('apiextensions-apiserver', '1.36.4'), [
      `--disable-admission-plugins=${base},ValidatingAdmissionPolicy,MutatingAdmissionPolicy`,
      '--feature-gates=ShardedListAndWatch=true',
    ]);
  });

  it('etcd: --unsafe-no-fsync from 3.4.10 (3.4.9 ships with 1.20 upstream, 3.4.23 is Debian’s, 3.5 ships with 1.24 to 1.36)', () => {
    assert.deepEqual(at('etcd', '3.4.9'), []);
    for (const version of ['3.4.10', '3.4.23', '3.5.16', '3.6.0']) assert.deepEqual(at('etcd', version), ['--unsafe-no-fsync'], version);
  });

  it('a binary whose version is unknown gets only the flags every version takes', () => {
    assert.deepEqual(versionedFlags('kube-apiserver', undefined), []);
    assert.deepEqual(versionedFlags('kube-controller-manager', undefined), []);
    assert.deepEqual(versionedFlags('etcd', undefined), []);
    assert.deepEqual(versionedFlags('apiextensions-apiserver', undefined), ['--disable-admission-plugins=NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook']);
  });

  it('every row of the table has bounds that parse, lower before upper, and says why', () => {
    for (const row of VERSIONED_FLAGS) {
      for (const b of [row.since, row.until]) if (b !== undefined) assert.ok(parseReleaseVersion(b), `${row.binary} ${row.flag}: ${b}`);
      if (row.since && row.until) assert.ok(compareReleaseVersions(v(row.since), v(row.until)) < 0, row.flag);
      assert.ok(row.why.length > 10, `${row.binary} ${row.flag} says why`);
      assert.ok(row.flag.startsWith('--'), row.flag);
      if (row.item !== undefined) assert.ok(!row.flag.includes('='), `${row.flag}: a list row names the bare flag`);
    }
  });
});

describe('binary versions', () => {
  it('reads what Kubernetes components, etcd and apiextensions-apiserver --help print', () => {
    assert.deepEqual(parseVersionOutput('Kubernetes v1.20.2\n'), { major: 1, minor: 20, patch: 2, text: 'Kubernetes v1.20.2' });
    assert.deepEqual(parseVersionOutput('Kubernetes v1.30.0-rc.1+abcdef\n'), { major: 1, minor: 30, patch: 0, text: 'Kubernetes v1.30.0-rc.1+abcdef' });
    const etcd = 'etcd Version: 3.4.23\nGit SHA: Not provided (use ./build instead of go build)\nGo Version: go1.19.8\nGo OS/Arch: linux/amd64\n';
    assert.deepEqual(parseVersionOutput(etcd), { major: 3, minor: 4, patch: 23, text: 'etcd Version: 3.4.23' });
    const help =
      "      --emulated-version strings    The versions different components emulate their capabilities (APIs, features, ...) of.\n" +
      "                                    Options are: kube=1.33..1.36(default:1.36)\n";
    assert.deepEqual(parseVersionOutput(help), { major: 1, minor: 36, patch: 0, text: '--emulated-version kube=1.33..1.36(default:1.36)' });
    assert.equal(parseVersionOutput('Error: unknown flag: --version\nUsage:\n   [flags]\n'), undefined);
  });

  describe('asked of the binary', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-versions-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const script = (name: string, body: string): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return file;
    };

    it('runs --version, then --help when that prints no version; once per binary until it changes', async () => {
      const log = path.join(dir, 'calls');
      const crd = script('apiextensions-apiserver', `echo "$1" >> ${log}\n[ "$1" = --help ] && echo '  Options are: kube=1.31..1.34(default:1.34)' && exit 0\necho 'Error: unknown flag: --version' >&2; exit 1`);
      assert.deepEqual(await binaryVersion(crd), { major: 1, minor: 34, patch: 0, text: '--emulated-version kube=1.31..1.34(default:1.34)' });
      assert.deepEqual(await binaryVersion(crd), { major: 1, minor: 34, patch: 0, text: '--emulated-version kube=1.31..1.34(default:1.34)' });
      assert.deepEqual(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean), ['--version', '--help']);
      // A rebuilt binary (another size) is asked again.
      const kube = script('kube-apiserver', 'echo "Kubernetes v1.30.4"');
      assert.equal((await binaryVersion(kube))?.minor, 30);
      fs.writeFileSync(kube, '#!/bin/sh\necho "Kubernetes v1.31.10"\n', { mode: 0o755 });
      assert.equal((await binaryVersion(kube))?.minor, 31);
    });

    it('a binary that prints no version, or cannot run, has none', async () => {
      assert.equal(await binaryVersion(script('mute', 'exit 0')), undefined);
      assert.equal(await binaryVersion(path.join(dir, 'absent')), undefined);
    });
  });
});

describe('Envtest.start passes the flags of the versions it reads', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegen-flags-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * A folder with a stand-in etcd (prints `etcdVersion`, records its flags, answers /health until killed) and a
   * stand-in apiserver (prints `apiserverVersion` for --version, records its flags and exits: the start fails).
   */
  const standIns = (name: string, apiserverBinary: string, etcdVersion: string, apiserverVersion: string): string => {
    const bin = path.join(dir, name);
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'etcd'),
      `#!${process.execPath}
const fs = require('node:fs');
if (process.argv[2] === '--version') { console.log('etcd Version: ${etcdVersion}'); process.exit(0); }
fs.writeFileSync(${JSON.stringify(path.join(bin, 'etcd.args'))}, JSON.stringify(process.argv.slice(2)));
const url = new URL(process.argv.find((a) => a.startsWith('--listen-client-urls=')).slice('--listen-client-urls='.length));
require('node:http').createServer((req, res) => res.end('{"health":"true"}')).listen(Number(url.port), url.hostname);
`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(bin, apiserverBinary),
      `#!${process.execPath}
if (process.argv[2] === '--version') { console.log('${apiserverVersion}'); process.exit(0); }
require('node:fs').writeFileSync(${JSON.stringify(path.join(bin, 'apiserver.args'))}, JSON.stringify(process.argv.slice(2)));
console.log('stand-in apiserver: exiting');
process.exit(1);
`,
      { mode: 0o755 },
    );
    return bin;
  };
  const read = (file: string): string[] => JSON.parse(fs.readFileSync(file, 'utf8')) as string[];

  it('kube-apiserver 1.19 gets --insecure-port=0 and etcd 3.5 --unsafe-no-fsync; the caller’s flags come last and win', async () => {
    const bin = standIns('old', 'kube-apiserver', '3.5.16', 'Kubernetes v1.19.16');
    await assert.rejects(Envtest.start({ assetsDir: bin, apiserverArgs: ['--v=4'], etcdArgs: ['--unsafe-no-fsync=false'], startTimeoutMs: 15_000 }), /kube-apiserver exited during startup/);
    const api = read(path.join(bin, 'apiserver.args'));
    assert.ok(api.includes('--insecure-port=0'), api.join(' '));
    assert.ok(api.includes('--v=4'));
    assert.ok(read(path.join(bin, 'etcd.args')).includes('--unsafe-no-fsync=false'));
    assert.ok(!read(path.join(bin, 'etcd.args')).includes('--unsafe-no-fsync'));
  });

  it('kube-apiserver 1.30 gets no --insecure-port; etcd 3.4.9 no --unsafe-no-fsync', async () => {
    const bin = standIns('new', 'kube-apiserver', '3.4.9', 'Kubernetes v1.30.0');
    await assert.rejects(Envtest.start({ assetsDir: bin, startTimeoutMs: 15_000 }), /kube-apiserver exited during startup/);
    const api = read(path.join(bin, 'apiserver.args'));
    assert.ok(!api.some((a) => a.startsWith('--insecure-port') || a.startsWith('--port')), api.join(' '));
    assert.ok(api.includes('--authorization-mode=RBAC'));
    assert.ok(!read(path.join(bin, 'etcd.args')).some((a) => a.startsWith('--unsafe-no-fsync')));
  });

  it('the CRD apiserver 1.30 gets no MutatingAdmissionPolicy and no ShardedListAndWatch gate, which it does not know', async () => {
    const bin = standIns('crd', 'apiextensions-apiserver', '3.5.16', 'Kubernetes v1.30.2');
    await assert.rejects(Envtest.start({ profile: 'crd-only', assetsDir: bin, garbageCollector: false, startTimeoutMs: 15_000 }), /apiextensions-apiserver exited during startup/);
    const api = read(path.join(bin, 'apiserver.args'));
    assert.ok(api.includes('--disable-admission-plugins=NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy'), api.join(' '));
    assert.ok(!api.some((a) => a.startsWith('--feature-gates')), api.join(' '));
    assert.ok(read(path.join(bin, 'etcd.args')).includes('--unsafe-no-fsync'));
  });
});
