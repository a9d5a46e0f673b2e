/**
 * JsonListDecoder (client/json-list.ts), the streaming decoder of list responses: for any JSON text cut into chunks
 * anywhere, the result is what JSON.parse of the whole text gives, and it throws exactly when JSON.parse throws
 * (random documents, truncations and corruptions from a fixed seed).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonListDecoder } from '@kubegen/runtime/internal/client/json-list.js';

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const STRINGS = ['', 'a', 'items', '"quoted"', 'back\\slash', 'ünï€😀', '\n\t', '{[]}', ',:', '\\"', 'x'.repeat(50)];

function value(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (depth > 3 || r < 0.3) return [null, true, false, 0.1235, -7, STRINGS[Math.floor(rnd() * STRINGS.length)]][Math.floor(rnd() * 6)];
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 4); i > 0; i--) o[rnd() < 0.2 ? 'items' : STRINGS[Math.floor(rnd() * STRINGS.length)]!] = value(rnd, depth + 1);
  return o;
}

function listDocument(rnd: () => number): unknown {
  if (rnd() < 0.1) return value(rnd, 0);
  const o: Record<string, unknown> = {};
  if (rnd() < 0.5) o['kind'] = 'FooList';
  if (rnd() < 0.8) o['items'] = rnd() < 0.1 ? value(rnd, 1) : Array.from({ length: Math.floor(rnd() * 6) }, () => value(rnd, 1));
  if (rnd() < 0.5) o['metadata'] = { resourceVersion: '12', continue: 'a"b' };
  return o;
}

function decode(bytes: Buffer, rnd: () => number): unknown {
  const d = new JsonListDecoder();
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 3 : 64));
    d.push(bytes.subarray(i, i + n));
    i += n;
  }
  return d.end();
}

const outcome = (f: () => unknown): unknown => {
  try {
    return f();
  } catch (err) {
    return err instanceof SyntaxError ? 'SyntaxError' : err;
  }
};

describe('JsonListDecoder', () => {
  it('decodes a list of objects whose items come before and after other members', () => {
    const text = '{"apiVersion":"v1","items":[{"a":1},{"items":[2]} , {"b":"]}"}],"kind":"List","metadata":{"resourceVersion":"5"}}';
    const d = new JsonListDecoder();
    d.push(Buffer.from(text));
    assert.deepEqual(d.end(), JSON.parse(text));
  });

  it('gives undefined for an empty body', () => {
    assert.equal(new JsonListDecoder().end(), undefined);
  });

  it('equals JSON.parse for random documents cut into random chunks, formatted or not', () => {
    const rnd = random(7);
    for (let t = 0; t < 5000; t++) {
      const text = JSON.stringify(listDocument(rnd), null, rnd() < 0.3 ? 2 : undefined);
      const bytes = Buffer.from((rnd() < 0.2 ? ' \n' : '') + text + (rnd() < 0.2 ? '\n' : ''));
      assert.deepEqual(decode(bytes, rnd), JSON.parse(bytes.toString('utf8')), text);
    }
  });

  it('throws a SyntaxError exactly when JSON.parse does, for truncated and corrupted documents', () => {
    const rnd = random(11);
    for (let t = 0; t < 5000; t++) {
      let text = JSON.stringify(listDocument(rnd));
      const k = Math.floor(rnd() * text.length);
      const r = rnd();
      if (r < 0.4) text = text.slice(0, k);
      else if (r < 0.7) text = text.slice(0, k) + text.slice(k + 1);
      else text = text.slice(0, k) + ',]}[{"'[Math.floor(rnd() * 6)] + text.slice(k);
      const bytes = Buffer.from(text);
      if (bytes.toString('utf8').trim() === '') continue;
      assert.deepEqual(outcome(() => decode(bytes, rnd)), outcome(() => JSON.parse(bytes.toString('utf8'))), text);
    }
  });
});
