/**
 * The built-in API front end reads `k8s.io/api`'s Go types as the Kubernetes OpenAPI generator does. The oracle is
 * client-go's structured-merge-diff schema (`applyconfigurations/internal/internal.go`, generated from the real
 * OpenAPI): every type it has must have exactly its fields (JSON names, inline structs flattened), and every list
 * must be associative (with the same keys) or atomic as it says — the rules server-side apply merges by.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import * as yaml from 'js-yaml';
import { tokenizeGo } from 'kubegen/internal/parse/go/go-lexer.js';
import { readKubeApi } from 'kubegen/internal/parse/kube-api/index.js';
import { k8sSource, KUBE_SOURCES, NEEDS_KUBE_SOURCES } from '../support/kube-sources.js';

interface SmdType {
  name: string;
  map?: { fields?: { name: string; type: { list?: { elementRelationship: string; keys?: string[] }; map?: { elementRelationship?: string } } }[]; elementRelationship?: string };
}

describe('built-in API against client-go\'s structured-merge-diff schema', () => {
  it('has every SMD type with exactly its fields, and each list associative with the same keys or atomic', NEEDS_KUBE_SOURCES, (t) => {
    const file = k8sSource('client-go', 'applyconfigurations', 'internal', 'internal.go');
    const raw = tokenizeGo(fs.readFileSync(file, 'utf8'), file).find((tok) => tok.kind === 'string' && tok.text.includes('types:'))!;
    const smd = (yaml.load(raw.text) as { types: SmdType[] }).types;
    const model = readKubeApi({ goRoot: KUBE_SOURCES! });
    const defs = model.definitions!;
    const problems: string[] = [];
    // Packages without a typed client (imagepolicy) are not generated.
    const generated = new Set([...defs.values()].map((d) => d.id.slice(0, d.id.lastIndexOf('.'))));
    let types = 0;
    let lists = 0;
    for (const st of smd) {
      if (!st.name.startsWith('io.k8s.api.') && !st.name.startsWith('io.k8s.apimachinery.pkg.apis.meta.v1.')) continue;
      if (!st.map?.fields || !generated.has(st.name.slice(0, st.name.lastIndexOf('.')))) continue;
      const found = defs.get(st.name);
      // A type alias of another package's type: compare that type.
      const def = found?.schema.$ref !== undefined ? defs.get(found.schema.$ref) : found;
      if (!def) {
        problems.push(`${st.name}: not in the model`);
        continue;
      }
      types++;
      const ours = Object.keys(def.schema.properties ?? {}).sort();
      const theirs = st.map.fields.map((f) => f.name).sort();
      if (ours.join() !== theirs.join()) problems.push(`${st.name}: fields ${ours.join()} ≠ ${theirs.join()}`);
      for (const f of st.map.fields) {
        const p = def.schema.properties?.[f.name];
        if (!p || !f.type.list) continue;
        lists++;
        const type = p['x-kubernetes-list-type'] ?? 'atomic';
        const rel = type === 'map' || type === 'set' ? 'associative' : 'atomic';
        const keys = (p['x-kubernetes-list-map-keys'] ?? []).join();
        if (rel !== f.type.list.elementRelationship || keys !== (f.type.list.keys ?? []).join()) {
          problems.push(`${st.name}.${f.name}: ${type} [${keys}] ≠ ${f.type.list.elementRelationship} [${(f.type.list.keys ?? []).join()}]`);
        }
      }
      if (st.map.elementRelationship === 'atomic' && def.schema['x-kubernetes-map-type'] !== 'atomic') problems.push(`${st.name}: not an atomic struct`);
    }
    t.diagnostic(`${types} types and ${lists} lists compared`);
    assert.ok(types > 800 && lists > 400, `${types} types, ${lists} lists`);
    assert.deepEqual(problems, []);
  });
});
