/**
 * Objects from a YAML manifest, for tests that start from a project's own files (`config/samples/*.yaml`, which
 * `npm run generate` keeps valid as the types change): `readObjects(file)` parses every document of the file as
 * kubectl would (YAML 1.2 JSON-compatible values; empty documents skipped) and returns the objects in file order.
 *
 * Contract: throws naming the file (and the line, for YAML errors) when it cannot be read, does not parse, or holds
 * a document that is not an object with `apiVersion` and `kind`.
 */
import fs from 'node:fs';
import { loadAll } from 'js-yaml';
import type { KubeObject } from '../client/types.js';

/** Every object of the YAML file `file` (see the module comment); typed as `T` (the caller knows the kind). */
export function readObjects<T extends KubeObject = KubeObject>(file: string): T[] {
  const text = fs.readFileSync(file, 'utf8');
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
  return docs
    .filter((d) => d !== null && d !== undefined)
    .map((d, i) => {
      if (typeof d !== 'object' || Array.isArray(d) || typeof (d as KubeObject).apiVersion !== 'string' || typeof (d as KubeObject).kind !== 'string') {
        throw new Error(`${file}: document ${i + 1} is not a Kubernetes object (apiVersion and kind)`);
      }
      return d as T;
    });
}
