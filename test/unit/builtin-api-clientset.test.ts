/**
 * `KubeClientset` has the surface of client-go's `kubernetes.Interface` (read from the client-go 0.36 sources, not from
 * kubegen's own model): every group/version accessor, camel-cased (`PolicyV1()` → `policyV1`), and on each every resource
 * accessor (`PodDisruptionBudgets(namespace)` → `podDisruptionBudgets(namespace)`) taking a namespace exactly where
 * client-go's does and sending requests to the resource client-go's sends them to. `KubeInformers` has an informer
 * for each resource client-go can list and watch.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/api/informers.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import type { FakeAction } from '@kubegen/runtime/internal/testing/fake/fake-actions.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { k8sSource, NEEDS_KUBE_SOURCES } from '../support/kube-sources.js';

interface GoAccessor {
  /** `PodDisruptionBudgets` */
  name: string;
  namespaced: boolean;
  /** The resource client-go's client sends requests to. */
  resource: string;
  /** Whether its interface lists and watches. */
  informable: boolean;
}

interface GoGroupVersion {
  /** `PolicyV1` */
  name: string;
  accessors: GoAccessor[];
}

/** client-go's `kubernetes.Interface`, its group/version interfaces and each resource client, from the sources. */
function clientGoSurface(): GoGroupVersion[] {
  const text = fs.readFileSync(k8sSource('client-go', 'kubernetes', 'clientset.go'), 'utf8');
  const imports = new Map([...text.matchAll(/^\t(\w+) "k8s\.io\/client-go\/kubernetes\/typed\/([\w./]+)"$/gm)].map((m) => [m[1]!, m[2]!]));
  const iface = /^type Interface interface \{\n([\s\S]*?)\n\}/m.exec(text)![1]!;
  const out: GoGroupVersion[] = [];
  for (const m of iface.matchAll(/^\t(\w+)\(\) (\w+)\.\w+Interface$/gm)) {
    const typed = imports.get(m[2]!);
    if (typed === undefined) continue; // Discovery()
    const dir = k8sSource('client-go', 'kubernetes', 'typed', typed);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    const accessors: GoAccessor[] = [];
    for (const f of files) {
      for (const g of f.matchAll(/^type (\w+)Getter interface \{\n\t(\w+)\((namespace string)?\) (\w+)Interface\n\}/gm)) {
        const resource = /gentype\.NewClient\w*\[[^\]]*\]\(\s*"([^"]+)"/.exec(f)![1]!;
        const body = new RegExp(`^type ${g[4]}Interface interface \\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(f)![1]!;
        accessors.push({ name: g[2]!, namespaced: g[3] !== undefined, resource, informable: /^\tList\(/m.test(body) && /^\tWatch\(/m.test(body) });
      }
    }
    out.push({ name: m[1]!, accessors });
  }
  return out;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

describe('KubeClientset against client-go 0.36', () => {
  it('has every group/version and resource accessor kubernetes.Interface has, with its scope and resource', NEEDS_KUBE_SOURCES, async (t) => {
    const surface = clientGoSurface();
    const accessorCount = surface.reduce((n, gv) => n + gv.accessors.length, 0);
    t.diagnostic(`client-go: ${surface.length} group/versions, ${accessorCount} typed accessors`);
    assert.ok(surface.length >= 50 && accessorCount >= 150, `${surface.length} group/versions, ${accessorCount} accessors read`);
    const sent: FakeAction[] = [];
    const fake = newFakeTransport([]);
    fake.prependReactor('*', '*', (req) => {
      sent.push(req);
      return { handled: true, response: {} };
    });
    const cs = new KubeClientset(fake) as unknown as Record<string, Record<string, (ns?: string) => { get(name: string): Promise<unknown>; create(o: unknown): Promise<unknown> }>>;
    const missing: string[] = [];
    for (const gv of surface) {
      const member = lowerFirst(gv.name);
      const client = cs[member];
      if (!client) {
        missing.push(`${member} (client-go ${gv.name}())`);
        continue;
      }
      const ours = new Map(Object.getOwnPropertyNames(Object.getPrototypeOf(client)).map((n) => [n.toLowerCase(), n]));
      for (const a of gv.accessors) {
        const name = ours.get(a.name.toLowerCase());
        if (name === undefined) {
          missing.push(`${member}.${lowerFirst(a.name)} (client-go ${gv.name}().${a.name})`);
          continue;
        }
        const accessor = client[name]!;
        assert.equal(accessor.length, a.namespaced ? 1 : 0, `${member}.${name} takes a namespace exactly when client-go's does`);
        const rc = accessor.call(client, a.namespaced ? 'ns' : undefined);
        sent.length = 0;
        const call = typeof rc.get === 'function' ? rc.get('x') : rc.create({ metadata: { name: 'x', namespace: 'ns' } });
        await call;
        assert.equal(sent[0]?.resource, a.resource, `${member}.${name} sends to ${a.resource}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('KubeInformers has an informer for every resource client-go lists and watches', NEEDS_KUBE_SOURCES, () => {
    const informers = new KubeInformers(new SharedInformerFactory(newFakeTransport([]))) as unknown as Record<string, Record<string, unknown> | undefined>;
    const missing: string[] = [];
    for (const gv of clientGoSurface()) {
      const member = lowerFirst(gv.name);
      for (const a of gv.accessors.filter((x) => x.informable)) {
        const group = informers[member];
        const names = group ? Object.getOwnPropertyNames(Object.getPrototypeOf(group)).map((n) => n.toLowerCase()) : [];
        if (!names.includes(a.name.toLowerCase())) missing.push(`${member}.${lowerFirst(a.name)}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
