/**
 * Validation of every user-supplied name that `codegen init` / `codegen create api` put into file paths, YAML or
 * TypeScript code, and the identifiers derived from them. Nothing reaches a template without passing these checks;
 * each throws {@link ScaffoldError} with a one-line message.
 */
import { checkGroup, checkKind, checkLabel, checkVersion } from '../parse/crd/names.js';
import { pluralize } from '../parse/typescript/kind.js';
import { camel, pascal } from '../model/index.js';
import type { KindVersion } from '../model/index.js';
import { groupVersionMember, lowerCamel, pluralMember, resourceConstName } from '../generate/names.js';
import { ScaffoldError } from './errors.js';

/** The default `--domain`, as kubebuilder's. */
export const DEFAULT_DOMAIN = 'my.domain';

/**
 * Identifiers the scaffolded files import next to the kind's own names (`<Kind>`, `<Kind>Spec`, `<Kind>Status`,
 * `<Kind>List`, `<Kind>Reconciler`); a kind spelled like one of them would not compile.
 */
const TEMPLATE_IDENTIFIERS = new Set([
  'Condition', 'ListMeta', 'ObjectMeta', 'Controller', 'Manager', 'ReconcileContext', 'Reconciler', 'Request', 'Result',
  'Clientset', 'CachedClient', 'Envtest', 'API_VERSION', 'NAMESPACE', 'Date', 'Object', 'Promise', 'Error', 'Array', 'String', 'Number', 'Boolean',
]);

function check(message: string | undefined): void {
  if (message !== undefined) throw new ScaffoldError(message);
}

/** Project name: a DNS-1123 label (it names the Namespace, Deployment, ServiceAccount and npm package). */
export function checkProjectName(name: string): void {
  check(checkLabel('project name', name));
}

/** Domain: a DNS-1123 subdomain; API groups are `<group>.<domain>`. */
export function checkDomain(domain: string): void {
  check(checkGroup(domain)?.replace(/^group/, 'domain'));
}

/** Group (short): a DNS-1123 label; it is also the folder `apis/<group>`. */
export function checkGroupName(group: string): void {
  check(checkLabel('group', group));
}

export function checkVersionName(version: string): void {
  check(checkVersion(version));
}

/** Kind: PascalCase letters and digits, not a TypeScript reserved word nor a name the templates use. */
export function checkKindName(kind: string): void {
  check(checkKind('kind', kind));
  if (!/^[A-Z]/.test(kind)) throw new ScaffoldError(`kind ${JSON.stringify(kind)} must start with an upper-case letter (PascalCase, e.g. Frigate)`);
  if (kind.endsWith('List')) throw new ScaffoldError(`kind ${JSON.stringify(kind)} must not end in "List" (the list type is named <Kind>List)`);
  if (TEMPLATE_IDENTIFIERS.has(kind)) throw new ScaffoldError(`kind ${JSON.stringify(kind)} clashes with a name the scaffolded code imports; choose another kind`);
}

export function checkPlural(plural: string): void {
  check(checkLabel('plural', plural));
}

/** `--runtime-version`: an npm version range (digits, letters and `.^~<>=|*+-` and spaces only). */
export function checkVersionRange(range: string): void {
  if (range.length === 0 || range.length > 100 || !/^[0-9A-Za-z.^~<>=|*+ -]+$/.test(range)) {
    throw new ScaffoldError(`runtime version ${JSON.stringify(range)} is not an npm version range (e.g. ^0.1.0)`);
  }
}

/** What `create api` asks for, validated, and every name derived from it. */
export interface ApiNames {
  group: string;
  domain: string;
  /** `<group>.<domain>` */
  fullGroup: string;
  /** `+groupGoName` of the group's packages: `group` in PascalCase (`Webapp`); its accessors are `webappV1`. */
  groupGoName: string;
  version: string;
  kind: string;
  plural: string;
  /** The plural was given and differs from the default, so the types need `+kubebuilder:resource:path=`. */
  customPlural: boolean;
  /** `kind.toLowerCase()`: file names (`<base>_types.ts`, `<base>-controller.ts`) and the controller name. */
  fileBase: string;
  /** `frigateResource` in the generated `register.ts`. */
  resourceConst: string;
  /**
   * `frigate`, `kvStore`: the stem of the scaffolded webhook exports (`kvStoreDefaulter`, `kvStoreValidator`,
   * `kvStoreConversion`), cased as `resourceConst` is (one rule: `kvStoreResource`, not `kVStore…`).
   */
  exportStem: string;
  /** `shipsV1` on the generated `Clientset`. */
  groupVersionMember: string;
  /** `frigates` on the group/version client. */
  pluralMember: string;
}

/** Validates the `create api` names and derives the identifiers the generator will emit for them. */
export function apiNames(group: string, domain: string, version: string, kind: string, plural?: string): ApiNames {
  checkGroupName(group);
  checkVersionName(version);
  checkKindName(kind);
  const fullGroup = `${group}.${domain}`;
  check(checkGroup(fullGroup));
  const defaultPlural = pluralize(kind.toLowerCase());
  const p = plural ?? defaultPlural;
  checkPlural(p);
  const kindVersion = { resource: { names: { kind, plural: p } } } as unknown as KindVersion;
  // The scaffold names the group's accessors after `group` (`+groupGoName` in its doc.ts, as client-go's generator
  // names a group after its package): `webappV1`, not the default `webappMyV1` of `webapp.my.domain`.
  const groupId = camel(group);
  return {
    group,
    domain,
    fullGroup,
    groupGoName: pascal(group),
    version,
    kind,
    plural: p,
    customPlural: p !== defaultPlural,
    fileBase: kind.toLowerCase(),
    resourceConst: resourceConstName(kind),
    exportStem: lowerCamel(kind),
    groupVersionMember: groupVersionMember(groupId, version),
    pluralMember: pluralMember(kindVersion),
  };
}
