/**
 * Generated apply configurations (issue 12): the shape of `applyconfigurations.ts` for a CRD with nested objects,
 * maps, arrays, a set and list-maps; the generated code with a user's file compiled under `tsc --strict`, where a
 * list-map entry without its key, a configuration without `metadata.name`, a wrong `kind` or an unknown field do
 * not compile; names clear of the other modules' names; hostile input only in literals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generate } from 'kubegen/internal/generate/index.js';
import { HEADER } from 'kubegen/internal/generate/emit-util.js';
import { parseCrdPaths, parseCrdText } from 'kubegen/internal/parse/crd/index.js';
import { thingCrd } from '../support/crd-yaml.js';
import { fixture } from '../support/paths.js';
import { typeCheckGenerated } from '../support/type-check.js';

const GADGETS = fixture('apply', 'gadgets.yaml');

async function gadgetFiles() {
  return generate(await parseCrdPaths([GADGETS]));
}

function contentOf(files: { path: string; content: string }[], p: string): string {
  const f = files.find((x) => x.path === p);
  assert.ok(f, `${p} is generated`);
  return f.content;
}

const compile = typeCheckGenerated;

const IMPORTS = `import { gadgetApply } from './generated/apply.kubegen.io/v1/index.js';
import type { GadgetApply } from './generated/apply.kubegen.io/v1/index.js';
import { Clientset } from './generated/index.js';
`;

describe('applyconfigurations.ts', () => {
  it('spells out a deep-partial type per struct, list-map keys required (a defaulted key optional), and a constructor per kind', async () => {
    const text = contentOf(await gadgetFiles(), 'apply.kubegen.io/v1/applyconfigurations.ts');
    assert.ok(text.startsWith(`${HEADER}\n`));
    assert.match(text, /export interface GadgetApply \{\n  apiVersion: "apply\.kubegen\.io\/v1";\n  kind: "Gadget";\n  metadata: ApplyObjectMeta;\n  spec\?: GadgetSpecApply;\n  status\?: GadgetStatusApply;\n\}/);
    assert.match(text, /export function gadgetApply\(name: string, namespace\?: string\): GadgetApply \{/);
    // ports: keys name and protocol, protocol has a default → only name is required
    assert.match(text, /  ports\?: ListMapEntry<GadgetSpecPortApply, "name">\[\];/);
    assert.match(text, /  conditions\?: ListMapEntry<GadgetStatusConditionApply, "type">\[\];/);
    // a set and an atomic list are plain arrays; nested objects and maps are deep-partial
    assert.match(text, /  tags\?: string\[\];/);
    assert.match(text, /  rules\?: GadgetSpecRuleApply\[\];/);
    assert.match(text, /export interface GadgetSpecTemplateApply \{\n  labels\?: \{ \[key: string\]: string \};\n  config\?: GadgetSpecTemplateConfigApply;\n\}/);
    // every property of a struct is optional, the schema's required ones too (another manager may own them)
    assert.match(text, /export interface GadgetSpecPortApply \{\n  name\?: string;\n  protocol\?: string;\n  port\?: number;\n  description\?: string;\n\}/);
    const client = contentOf(await gadgetFiles(), 'apply.kubegen.io/v1/client.ts');
    assert.match(client, /export type GadgetInterface = ResourceInterface<Gadget, GadgetList, GadgetApply> & StatusInterface<Gadget, GadgetApply>;/);
  });

  it('is deterministic', async () => {
    assert.deepEqual(await gadgetFiles(), await gadgetFiles());
  });

  it('compiles under tsc --strict with a user file, and refuses what the apiserver would refuse', async () => {
    const ok = `${IMPORTS}
export const config: GadgetApply = {
  ...gadgetApply('a', 'ns'),
  metadata: { name: 'a', namespace: 'ns', labels: { app: 'x' } },
  spec: {
    replicas: 2,
    template: { config: { mode: 'fast' }, labels: { tier: 'web' } },
    ports: [{ name: 'http', port: 80 }, { name: 'dns', protocol: 'UDP' }],
    tags: ['a'],
    rules: [{ host: 'h' }],
  },
};
export const statusOnly: GadgetApply = { ...gadgetApply('a', 'ns'), status: { conditions: [{ type: 'Ready', status: 'True' }] } };
export async function use(cs: Clientset): Promise<number | undefined> {
  const g = await cs.applyKubegenV1.gadgets('ns').apply(config, { fieldManager: 'me', force: true });
  await cs.applyKubegenV1.gadgets('ns').applyStatus(statusOnly);
  return g.spec?.replicas;
}
`;
    const refused: Record<string, [string, RegExp]> = {
      'bad-key.ts': [`export const c: GadgetApply = { ...gadgetApply('a'), spec: { ports: [{ port: 80 }] } };`, /Property 'name' is missing/],
      'bad-condition-key.ts': [`export const c: GadgetApply = { ...gadgetApply('a'), status: { conditions: [{ status: 'True' }] } };`, /Property 'type' is missing/],
      'bad-name.ts': [`export const c: GadgetApply = { apiVersion: 'apply.kubegen.io/v1', kind: 'Gadget', metadata: {} };`, /Property 'name' is missing/],
      'bad-kind.ts': [`export const c: GadgetApply = { ...gadgetApply('a'), kind: 'Widget' };`, /"Widget"' is not assignable to type '"Gadget"'/],
      'bad-field.ts': [`export const c: GadgetApply = { ...gadgetApply('a'), spec: { replica: 1 } };`, /'replica' does not exist/],
      'bad-enum.ts': [`export const c: GadgetApply = { ...gadgetApply('a'), spec: { template: { config: { mode: 'slow' } } } };`, /"slow"' is not assignable/],
      'bad-client.ts': [`export const f = (cs: Clientset) => cs.applyKubegenV1.gadgets('ns').apply({ metadata: { name: 'a' } });`, /apiVersion/],
    };
    const files = { 'ok.ts': ok, ...Object.fromEntries(Object.entries(refused).map(([f, [body]]) => [f, `${IMPORTS}${body}\n`])) };
    // Each bad file imports more than it uses: unused imports are not what this test is about.
    const output = compile(await gadgetFiles(), files, { noUnusedLocals: false });
    const errors = output.split('\n').filter((l) => /error TS\d+/.test(l));
    assert.ok(errors.length > 0 && !errors.some((l) => !/(^|\/)bad-[a-z-]+\.ts\(/.test(l)), `only the bad files fail:\n${output}`);
    for (const [file, [, expected]] of Object.entries(refused)) {
      const own = output.split(/\n(?=\S)/).filter((block) => block.includes(`/${file}(`) || block.startsWith(`${file}(`)).join('\n');
      assert.match(own, expected, `${file} is refused for the right reason:\n${output}`);
    }
  });

  it('names its types clear of the types.ts names and keeps input text in literals', async () => {
    // `spec.apply` is an object: types.ts has ThingSpecApply, so the apply type of ThingSpec must be another name.
    const text = thingCrd({
      apply: '{type: object, properties: {x: {type: string}}}',
      '"odd-key */"': `{type: string, enum: ["a\\"b", "*/ c"], description: "*/ export const pwned = 1; /*"}`,
    });
    const files = generate({ resources: parseCrdText(text, 'thing.yaml') });
    const apply = contentOf(files, 'x.io/v1/applyconfigurations.ts');
    assert.match(apply, /export interface ThingSpecApplyConfiguration \{\n  apply\?: ThingSpecApplyApply;\n  "odd-key \*\/"\?: "a\\"b" \| "\*\/ c";\n\}/);
    assert.doesNotMatch(apply, /pwned/);
    assert.equal(compile(files, { 'use.ts': `import type { ThingSpecApply, ThingSpecApplyConfiguration } from './generated/x.io/v1/index.js';\nexport type T = [ThingSpecApply, ThingSpecApplyConfiguration];\n` }), '');
  });
});
