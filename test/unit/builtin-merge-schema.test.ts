/**
 * The fake tracker's server-side apply merges a built-in kind by what its generated merge schema says
 * (`associativeLists`, `atomicObjects` of `api/<folder>/<version>/merge-schema.ts`, apart from the descriptor). Here every descriptor of `@kubegen/runtime/api` is checked against the schema
 * kube-apiserver's server-side apply uses: structured-merge-diff's, as client-go 0.36 carries it in
 * `applyconfigurations/internal/internal.go` (read from the unpacked Kubernetes sources; skipped where they are not).
 * Every associative list (its keys, and their non-zero defaults) and every atomic object must be the same, path by
 * path; `metadata` at the root is the runtime's own (owner references by uid, finalizers a set).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { defaultGoRoot } from 'kubegen/internal/builtin-api/regenerate.js';
import { loadBuiltinApi } from 'kubegen/internal/builtin-api/index.js';
import { allResources } from '@kubegen/runtime/internal/api/resources.js';
import type { MergeSchema, ResourceDescriptor } from '@kubegen/runtime/internal/client/types.js';
import { builtinMergeSchema } from '@kubegen/runtime/internal/api/merge-schemas.js';

const INTERNAL_GO = path.join(defaultGoRoot(), 'k8s.io/client-go/applyconfigurations/internal/internal.go');

/** structured-merge-diff's schema types (the part read here). */
interface TypeRef {
  namedType?: string;
  /** On a reference to a named type: `separable` or `atomic` instead of the type's own (`+structType=granular` on a field). */
  elementRelationship?: string;
  scalar?: string;
  map?: SmdMap;
  list?: { elementType: TypeRef; elementRelationship?: string; keys?: string[] };
}
interface SmdMap {
  fields?: { name: string; type: TypeRef; default?: unknown }[];
  elementType?: TypeRef;
  elementRelationship?: string;
}
interface SmdType extends Omit<TypeRef, 'namedType'> {
  name: string;
}

/** The named types of internal.go's `schemaYAML`. */
function readSchema(file: string): Map<string, SmdType> {
  const text = fs.readFileSync(file, 'utf8');
  const m = /schemaYAML = typed\.YAMLObject\(`([\s\S]*?)`\)/.exec(text);
  assert.ok(m, `${file}: no schemaYAML`);
  const doc = parse(m[1]!) as { types: SmdType[] };
  return new Map(doc.types.map((t) => [t.name, t]));
}

/** A descriptor's merge rules in a comparable form: `path → keys (defaults)` for lists, `path` for atomic objects. */
interface Rules {
  lists: Map<string, string>;
  atomic: Set<string>;
}

/** A key default that is its type's zero value: an entry without that key is invalid anyway, so it makes no difference. */
const isZero = (v: unknown): boolean => v === undefined || v === 0 || v === '' || v === false;

const listText = (keys: readonly string[] | undefined, defaults: Record<string, unknown>): string => {
  const set = Object.entries(defaults).filter(([, v]) => !isZero(v));
  return keys ? `map ${keys.join(',')}${set.length > 0 ? ` ${JSON.stringify(Object.fromEntries(set))}` : ''}` : 'set';
};

/** What structured-merge-diff's schema says of the kind named `typeName` (the same walk as the generator's). */
function smdRules(types: Map<string, SmdType>, typeName: string): Rules {
  const out: Rules = { lists: new Map(), atomic: new Set() };
  const walk = (ref: TypeRef, at: string[], within: readonly string[]): void => {
    if (ref.namedType !== undefined && within.includes(ref.namedType)) return;
    const t: TypeRef | undefined = ref.namedType !== undefined ? types.get(ref.namedType) : ref;
    if (!t) return;
    const inside = ref.namedType !== undefined ? [...within, ref.namedType] : within;
    if (t.map) {
      if ((ref.namedType !== undefined ? (ref.elementRelationship ?? t.map.elementRelationship) : t.map.elementRelationship) === 'atomic') {
        if (at.length > 0) out.atomic.add(JSON.stringify(at));
        return;
      }
      for (const f of t.map.fields ?? []) {
        if (at.length === 0 && ['apiVersion', 'kind', 'metadata'].includes(f.name)) continue;
        walk(f.type, [...at, f.name], inside);
      }
      if (t.map.elementType && !(t.map.fields?.length)) walk(t.map.elementType, [...at, '{}'], inside);
    }
    if (t.list) {
      const { elementRelationship: rel, keys, elementType } = t.list;
      if (rel === 'associative') {
        const el = elementType.namedType !== undefined ? types.get(elementType.namedType) : elementType;
        // Key defaults as the apiserver fills them in.
        const defaults = Object.fromEntries(
          (keys ?? []).flatMap((k) => {
            const d = el?.map?.fields?.find((f) => f.name === k)?.default;
            return isZero(d) ? [] : [[k, d]];
          }),
        );
        out.lists.set(JSON.stringify(at), listText(keys, defaults));
        walk(elementType, [...at, '[]'], inside);
      }
    }
  };
  walk({ namedType: typeName }, [], []);
  return out;
}

/**
 * What a descriptor says, of the places server-side apply reaches: not inside an atomic list (its entries are part of
 * one value; the generator lists what it finds there all the same) or an atomic object.
 */
function descriptorRules(res: ResourceDescriptor): Rules {
  // The built-in API keeps a kind's merge schema apart from its descriptor (`merge-schema.ts`): the fake reads both.
  assert.equal(res.associativeLists ?? res.atomicObjects, undefined, `${res.kind}: a built-in descriptor carries no merge schema`);
  const d: MergeSchema = builtinMergeSchema(res.group ? `${res.group}/${res.version}` : res.version, res.kind) ?? {};
  const lists = new Set((d.associativeLists ?? []).map((l) => JSON.stringify(l.path)));
  const atomic = (d.atomicObjects ?? []).map((p) => JSON.stringify(p));
  const reached = (p: readonly string[]): boolean =>
    p.every((seg, i) => (seg !== '[]' || lists.has(JSON.stringify(p.slice(0, i)))) && (i === p.length - 1 || !atomic.includes(JSON.stringify(p.slice(0, i + 1)))));
  return {
    lists: new Map((d.associativeLists ?? []).filter((l) => reached(l.path)).map((l) => [JSON.stringify(l.path), listText(l.keys, l.keyDefaults ?? {})])),
    atomic: new Set((d.atomicObjects ?? []).filter((p) => reached(p)).map((p) => JSON.stringify(p))),
  };
}

/** The lines only one side has, `- ` for structured-merge-diff's, `+ ` for the descriptor's. */
function difference(smd: Rules, ours: Rules): string[] {
  const lines = (r: Rules): Set<string> => new Set([...[...r.lists].map(([p, t]) => `${p} ${t}`), ...[...r.atomic].map((p) => `${p} atomic`)]);
  const a = lines(smd);
  const b = lines(ours);
  return [...[...a].filter((l) => !b.has(l)).map((l) => `- ${l}`), ...[...b].filter((l) => !a.has(l)).map((l) => `+ ${l}`)];
}

describe('built-in descriptors carry structured-merge-diff\'s list and map types (client-go 0.36 internal.go)', { skip: fs.existsSync(INTERNAL_GO) ? false : `no Kubernetes sources at ${INTERNAL_GO} (hack/setup-envtest-1.36.sh)` }, () => {
  it('every kind: the same associative lists (keys, key defaults) and atomic objects, path by path', () => {
    const types = readSchema(INTERNAL_GO);
    const definitionOf = new Map<string, { id: string; applied: boolean }>();
    for (const r of loadBuiltinApi().model.resources) {
      for (const v of r.versions) if (v.builtin) definitionOf.set(`${r.group}/${v.name}/${r.names.kind}`, { id: v.builtin.definition, applied: v.builtin.verbs.includes('apply') });
    }
    const problems: string[] = [];
    let checked = 0;
    for (const d of allResources) {
      const def = definitionOf.get(`${d.group}/${d.version}/${d.kind}`);
      assert.ok(def, `${d.kind} ${d.group}/${d.version} is in the built-in API model`);
      const id = def.id;
      if (!types.has(id)) {
        // The create-only reviews have no apply configurations: nothing is applied to them.
        if (def.applied) problems.push(`${id}: not in internal.go`);
        continue;
      }
      checked++;
      const diff = difference(smdRules(types, id), descriptorRules(d));
      if (diff.length > 0) problems.push(`${d.kind} ${d.group || 'core'}/${d.version}:\n  ${diff.join('\n  ')}`);
    }
    assert.deepEqual(problems, [], `${problems.length} kinds differ`);
    assert.ok(checked > 130, `${checked} kinds checked`);
  });

  it('the ones the issue names: containers and env by name, ports by containerPort and protocol (TCP), conditions by type, a selector atomic', () => {
    const deployment = allResources.find((d) => d.group === 'apps' && d.version === 'v1' && d.kind === 'Deployment')!;
    const lists = descriptorRules(deployment).lists;
    const pod = ['spec', 'template', 'spec'];
    assert.equal(lists.get(JSON.stringify([...pod, 'containers'])), 'map name');
    assert.equal(lists.get(JSON.stringify([...pod, 'containers', '[]', 'env'])), 'map name');
    assert.equal(lists.get(JSON.stringify([...pod, 'containers', '[]', 'ports'])), 'map containerPort,protocol {"protocol":"TCP"}');
    assert.equal(lists.get(JSON.stringify(['status', 'conditions'])), 'map type');
    assert.ok(descriptorRules(deployment).atomic.has(JSON.stringify(['spec', 'selector'])));
  });
});
