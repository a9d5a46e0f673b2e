/**
 * `KubeClientset` has the surface of client-go's `kubernetes.Interface` (read from the client-go 0.36 sources, not from
 * kubegen's own model): every group/version accessor, camel-cased (`PolicyV1()` → `policyV1`), and on each every resource
 * accessor (`PodDisruptionBudgets(namespace)` → `podDisruptionBudgets(namespace)`) taking a namespace exactly where
 * client-go's does and sending requests to the resource client-go's sends them to. `KubeInformers` has an informer
 * for each resource client-go can list and watch.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { KubeClientset } from '@kubegen/runtime/internal/api/clientset.js';
import { KubeInformers } from '@kubegen/runtime/internal/api/informers.js';
import { SharedInformerFactory } from '@kubegen/runtime/internal/cache/factory.js';
import type { FakeAction } from '@kubegen/runtime/internal/testing/fake/fake-actions.js';
import { newFakeTransport } from '@kubegen/runtime/internal/testing/fake/fake-transport.js';
import { k8sSource, NEEDS_KUBE_SOURCES } from '../support/kube-sources.js';
import { REPO_ROOT } from '../support/paths.js';

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

describe('KubeClientset and KubeInformers load lazily', () => {
  it('load a group/version\'s modules only when it is first asked for, and build its client once', () => {
    // Counts the generated api/<folder>/<version>/*.js modules resolved, after each step.
    const probe = [
      "import { registerHooks } from 'node:module';",
      'const loaded = new Set();',
      "registerHooks({ resolve(s, c, next) { const r = next(s, c); const m = /\\/api\\/(\\w+\\/v\\w+)\\//.exec(r.url); if (m) loaded.add(m[1]); return r; } });",
      `const { KubeClientset } = await import(${JSON.stringify(path.join(REPO_ROOT, 'packages/runtime/dist/api/clientset.js'))});`,
      `const { KubeInformers } = await import(${JSON.stringify(path.join(REPO_ROOT, 'packages/runtime/dist/api/informers.js'))});`,
      'const steps = [[...loaded]];',
      'const cs = new KubeClientset({}); const inf = new KubeInformers({ informerFor() {} });',
      'steps.push([...loaded]);',
      'const a = cs.policyV1; const b = cs.policyV1;',
      'steps.push([...loaded].sort(), a === b);',
      'inf.rbacV1;',
      'steps.push([...loaded].sort());',
      'console.log(JSON.stringify(steps));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    const [atImport, afterNew, afterPolicy, same, afterInformers] = JSON.parse(out.trim().split('\n').pop()!) as [string[], string[], string[], boolean, string[]];
    assert.deepEqual(atImport, []);
    assert.deepEqual(afterNew, []);
    assert.ok(afterPolicy.includes('policy/v1') && !afterPolicy.includes('rbac/v1'), afterPolicy.join());
    assert.ok(afterPolicy.every((d) => ['policy/v1', 'meta/v1', 'core/v1', 'autoscaling/v1'].includes(d)), `only policy/v1 and what its types need: ${afterPolicy.join()}`);
    assert.equal(same, true, 'one client per group/version');
    assert.ok(afterInformers.includes('rbac/v1'));
  });
});
