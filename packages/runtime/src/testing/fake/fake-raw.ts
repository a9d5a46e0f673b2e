/**
 * What the fake transport answers to `raw()` requests (paths outside the resource API): `/version`, discovery of
 * the resources its tracker serves (see fake-discovery.ts), and `404 page not found` for anything else, as
 * kube-apiserver does.
 */
import type { RawRequestInit, RawResponse } from '../../client/types.js';
import { serveDiscovery, type FakeDiscoveryOptions } from './fake-discovery.js';
import type { FakeResource } from './fake-resource.js';

/** The version the fake reports at `/version`. */
export const FAKE_SERVER_VERSION = { major: '1', minor: '36', gitVersion: 'v1.36.0-kubegen-fake', platform: 'fake' };

/** The fake's answer to `raw(method, path)`; `tracker` (an `ObjectTracker`) holds the resources it serves. */
export function serveFakeRaw(
  tracker: { resources(): FakeResource[] },
  method: string,
  path: string,
  init: RawRequestInit = {},
  discovery: FakeDiscoveryOptions = { format: 'aggregated', stale: new Set() },
): RawResponse {
  const url = new URL(path, 'http://fake');
  if (method === 'GET' && url.pathname === '/version') return json(200, FAKE_SERVER_VERSION);
  const served = method === 'GET' ? serveDiscovery(tracker.resources(), url.pathname.replace(/\/+$/, '') || '/', init.accept, discovery) : undefined;
  return served ?? { statusCode: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from('404 page not found\n') };
}

/** A JSON response. */
export function json(statusCode: number, body: unknown, contentType = 'application/json'): RawResponse {
  return { statusCode, headers: { 'content-type': contentType }, body: Buffer.from(JSON.stringify(body)) };
}
