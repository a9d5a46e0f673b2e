import type { GroupVersion } from '../../model/index.js';
import { HEADER, literal } from '../emit-util.js';
import { groupVersionDir, groupVersionMember } from '../names.js';

/**
 * `fake.ts` at the output root: `createFakeClientset(...objects)` returns the real `Clientset` over the runtime's
 * in-memory `FakeTransport` (object tracker with apiserver semantics, recorded actions, reactors), for users'
 * controller unit tests. Kept out of `index.ts` so production code never loads the testing runtime. Imports the fake
 * part only (`<runtimeImport>/testing/fake`), so a unit test using it does not load envtest's process code.
 */
export function emitFake(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string): string {
  const imports = gvs.map(
    (gv) => `import { resources as ${groupVersionMember(groupIds.get(gv.group)!, gv.version)} } from ${literal(`./${groupVersionDir(gv)}/register${ext}`)};`,
  );
  return [
    HEADER,
    '',
    `import { newFakeTransport, newFakeTransportFromCrds } from ${literal(`${runtimeImport}/testing/fake`)};`,
    `import type { FakeFromCrdsOptions, FakeTransport } from ${literal(`${runtimeImport}/testing/fake`)};`,
    `import type { ValidatedCrd } from ${literal(`${runtimeImport}/validation`)};`,
    `import type { KubeObject, ResourceDescriptor } from ${literal(runtimeImport)};`,
    `import { Clientset } from ${literal(`./clientset${ext}`)};`,
    ...imports,
    '',
    '/** Every resource this clientset knows, for registering with a fake tracker. */',
    `export const allResources: readonly ResourceDescriptor[] = [${gvs.map((gv) => `...${groupVersionMember(groupIds.get(gv.group)!, gv.version)}`).join(', ')}];`,
    '',
    '/** A `Clientset` whose transport is an in-memory fake; `fake` gives access to its tracker, actions and reactors. */',
    'export class FakeClientset extends Clientset {',
    '  readonly fake: FakeTransport;',
    '',
    '  constructor(fake: FakeTransport) {',
    '    super(fake);',
    '    this.fake = fake;',
    '  }',
    '}',
    '',
    '/**',
    ' * A fake clientset seeded with `objects` (their apiVersion/kind pick the resource). Pass `extraResources` to also',
    ' * serve other kinds (e.g. built-in ones) through the same fake.',
    ' */',
    'export function createFakeClientset(objects: KubeObject[] = [], extraResources: readonly ResourceDescriptor[] = []): FakeClientset {',
    '  return new FakeClientset(newFakeTransport([...allResources, ...extraResources], ...objects));',
    '}',
    '',
    '/**',
    ' * A fake clientset over the CRDs of this clientset\'s kinds (e.g. `readCrdPaths([\'config/crd\'])`): creates, updates,',
    ' * patches, applies and status writes are validated against the CRDs as the apiserver would (pruning, defaults,',
    ' * schema, list types, CEL rules), so a test fails where the server refuses. `{ validate: false }` turns that off.',
    ' */',
    'export async function createFakeClientsetFromCrds(crds: readonly ValidatedCrd[], objects: KubeObject[] = [], options: FakeFromCrdsOptions = {}): Promise<FakeClientset> {',
    '  return new FakeClientset(await newFakeTransportFromCrds(crds, objects, { ...options, extraResources: [...allResources, ...(options.extraResources ?? [])] }));',
    '}',
    '',
  ].join('\n');
}
