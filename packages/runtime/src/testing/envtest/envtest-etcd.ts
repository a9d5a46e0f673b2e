/**
 * The control plane's etcd: one member on loopback ports, its data in `<dir>/etcd`, ready once `/health` answers 200;
 * compaction through its gRPC gateway (fault injection for informer tests). Stopping it leaves its data; `Envtest`
 * removes the whole dir.
 */
import http from 'node:http';
import path from 'node:path';
import { mergeFlags } from './envtest-assets.js';
import { ManagedProcess, waitUntilReady } from './envtest-process.js';

/** How to start etcd: its binary, the dir its data goes in, its client and peer ports, and flags to add. */
export interface EtcdProcessOptions {
  binary: string;
  dir: string;
  port: number;
  peerPort: number;
  /** Flags besides the ports and data dir (the versioned ones, then the caller's), later ones winning. */
  args: readonly string[];
  attachOutput: boolean;
}

/** A running etcd (see the module comment). */
export class EtcdProcess {
  /** Its client URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly process: ManagedProcess;

  /** Starts etcd; wait for it with {@link ready}. */
  constructor(opts: EtcdProcessOptions) {
    this.url = `http://127.0.0.1:${opts.port}`;
    const peerUrl = `http://127.0.0.1:${opts.peerPort}`;
    const args = mergeFlags(
      [
        `--data-dir=${path.join(opts.dir, 'etcd')}`,
        `--listen-client-urls=${this.url}`,
        `--advertise-client-urls=${this.url}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
      ],
      [...opts.args],
    );
    this.process = new ManagedProcess({ name: 'etcd', command: opts.binary, args, cwd: opts.dir, attachOutput: opts.attachOutput, watchdogRemoves: opts.dir });
  }

  /** Resolves once `/health` answers 200; rejects when etcd exits first or after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void> {
    return waitUntilReady(this.process, async () => (await getStatus(`${this.url}/health`)) === 200, timeoutMs);
  }

  /** Compacts etcd to its current revision; resolves with that revision. */
  async compact(): Promise<number> {
    const range = (await postJson(`${this.url}/v3/kv/range`, { key: Buffer.from('/').toString('base64') })) as { header?: { revision?: string } };
    const revision = Number(range.header?.revision);
    if (!Number.isFinite(revision) || revision <= 0) throw new Error(`etcd returned no revision: ${JSON.stringify(range)}`);
    await postJson(`${this.url}/v3/kv/compaction`, { revision: String(revision), physical: true });
    return revision;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void> {
    return this.process.stop(graceMs);
  }
}

/** Status code of a GET (plain HTTP, no keep-alive), 0 on a network error. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}

/** POSTs JSON over plain HTTP (etcd's gRPC gateway); resolves with the parsed body, rejects on non-2xx. */
function postJson(url: string, body: unknown): Promise<unknown> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': data.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`${url}: HTTP ${res.statusCode}: ${text}`));
        else resolve(text ? JSON.parse(text) : {});
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}
