import type { GroupVersion } from '../../model/index.js';
import { HEADER, literal } from '../emit-util.js';
import { groupVersionClientName, groupVersionDir, groupVersionMember } from '../names.js';

/**
 * `clientset.ts` at the output root: a `Clientset` with one member per group/version, built from a `Transport`
 * or from a kubeconfig (`Clientset.fromKubeConfig()`: explicit path → `KUBECONFIG` → in-cluster → ~/.kube/config).
 */
export function emitClientset(gvs: GroupVersion[], groupIds: Map<string, string>, runtimeImport: string, ext: string): string {
  const imports: string[] = [];
  const fields: string[] = [];
  const inits: string[] = [];
  for (const gv of gvs) {
    const id = groupIds.get(gv.group)!;
    const cls = groupVersionClientName(id, gv.version);
    const member = groupVersionMember(id, gv.version);
    imports.push(`import { ${cls} } from ${literal(`./${groupVersionDir(gv.group, gv.version)}/client${ext}`)};`);
    fields.push(`  /** The ${gv.group}/${gv.version} API. */`, `  readonly ${member}: ${cls};`);
    inits.push(`    this.${member} = new ${cls}(transport);`);
  }
  return [
    HEADER,
    '',
    `import { createTransport } from ${literal(runtimeImport)};`,
    `import type { ClientOptions, Transport } from ${literal(runtimeImport)};`,
    ...imports,
    '',
    '/** Typed clients for every group/version generated here, sharing one transport. */',
    'export class Clientset {',
    '  readonly transport: Transport;',
    ...fields,
    '',
    '  constructor(transport: Transport) {',
    '    this.transport = transport;',
    ...inits,
    '  }',
    '',
    '  /** A clientset talking to the cluster of a kubeconfig (no client-side throttling unless `qps` is set). */',
    '  static fromKubeConfig(opts: ClientOptions = {}): Clientset {',
    '    return new Clientset(createTransport(opts));',
    '  }',
    '}',
    '',
  ].join('\n');
}
