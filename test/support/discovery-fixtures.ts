/**
 * A transport that answers `raw()` requests with the discovery documents captured from the envtest apiservers
 * (fixtures/discovery, see hack/capture-discovery-fixtures.mjs), counting them; unknown paths answer 404. Tests may
 * replace or edit documents (`override`) to model stale group versions, failures and odd servers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RawRequestInit, RawResponse, ResourceRequest, Transport, Watch } from '@kubegen/runtime/internal/client/types.js';
import { fixture } from './paths.js';

/** One captured answer. `body` is the parsed JSON (or the text when it was not JSON). */
export interface CapturedResponse {
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** The captured answers of one server (`1.20`, `1.36`), by path. */
export function loadDiscoveryFixtures(server: '1.20' | '1.36'): Map<string, CapturedResponse> {
  const dir = fixture('discovery', server);
  const out = new Map<string, CapturedResponse>();
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as CapturedResponse;
    if (f === 'apis-legacy.json') continue; // the legacy answer to /apis; served by `legacyApis` on request
    out.set(doc.path, doc);
  }
  return out;
}

/** The 1.36 server's legacy `/apis` (what it answers to `Accept: application/json`). */
export function legacyApis136(): CapturedResponse {
  return JSON.parse(fs.readFileSync(fixture('discovery', '1.36', 'apis-legacy.json'), 'utf8')) as CapturedResponse;
}

/** Serves captured responses (see the module comment). */
export class FixtureTransport implements Transport {
  readonly requests: { path: string; accept: string | undefined }[] = [];
  constructor(readonly responses: Map<string, CapturedResponse>) {}

  /** Replaces (or adds) the answer to `p`; `status`/`contentType` default to 200 JSON. */
  override(p: string, body: unknown, opts: { status?: number; contentType?: string } = {}): void {
    this.responses.set(p, { path: p, status: opts.status ?? 200, contentType: opts.contentType ?? 'application/json', body });
  }

  async raw(_method: string, p: string, init: RawRequestInit = {}): Promise<RawResponse> {
    this.requests.push({ path: p, accept: init.accept });
    const r = this.responses.get(p);
    if (!r) return { statusCode: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from('404 page not found\n') };
    const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    return { statusCode: r.status, headers: { 'content-type': r.contentType }, body: Buffer.from(body) };
  }

  request<T>(_req: ResourceRequest): Promise<T> {
    return Promise.reject(new Error('FixtureTransport serves discovery only'));
  }

  watch<T>(_req: ResourceRequest): Promise<Watch<T>> {
    return Promise.reject(new Error('FixtureTransport serves discovery only'));
  }
}
