/**
 * The flags envtest passes only to some versions of a binary: a flag a later release removed (kube-apiserver 1.24
 * refuses to start when given `--insecure-port`), or one an earlier release did not have yet (an admission plugin's
 * name, a feature gate). {@link VERSIONED_FLAGS} is the table; {@link versionedFlags} picks a binary's rows for the
 * version `envtest-versions.ts` read from it. Flags every supported version takes are set where the profile is
 * (`envtest.ts`, `envtest-profile-setup.ts`, `envtest-cluster.ts`); a caller's own flags (`apiserverArgs`,
 * `etcdArgs`, `cluster.*Args`) are passed as given, after these.
 *
 * The ranges come from the Kubernetes and etcd release notes and sources: insecure serving was off by default from
 * kube-apiserver 1.20, a no-op in kube-controller-manager from 1.22 and kube-scheduler from 1.23, and the flags
 * were removed from all three in 1.24 (controller-runtime's envtest passes `--insecure-port=0` while the flag
 * exists, for the same reason); the generic apiserver's admission plugins ValidatingAdmissionPolicy (1.26) and
 * MutatingAdmissionPolicy (1.32), and the `ShardedListAndWatch` gate (1.36) in `k8s.io/apiserver`; etcd's
 * `--unsafe-no-fsync` from 3.4.10 (backported from 3.5).
 */
import { compareReleaseVersions, parseReleaseVersion, type ReleaseVersion } from '../../release-version.js';

/** The control-plane binaries whose flags depend on their version. */
export type VersionedBinary = 'etcd' | 'kube-apiserver' | 'apiextensions-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

/**
 * One row of {@link VERSIONED_FLAGS}: `binary` is given `flag` on versions from `since` (included) to `until`
 * (excluded); either bound may be absent. With `item`, the row adds one entry to the comma-separated list `flag`
 * takes (`--disable-admission-plugins=A,B`), in table order, and `flag` is the bare `--name`.
 */
export interface VersionedFlag {
  binary: VersionedBinary;
  flag: string;
  item?: string;
  since?: string;
  until?: string;
  /** Why the flag is passed, and what happens to it at the bounds. */
  why: string;
}

/** Every flag envtest passes to some versions of a binary only (see the module comment). */
export const VERSIONED_FLAGS: readonly VersionedFlag[] = [
  { binary: 'etcd', flag: '--unsafe-no-fsync', since: '3.4.10', why: 'test data need not survive a power cut; fsync is most of the cost of a write (added in 3.5.0 and 3.4.10)' },
  {
    binary: 'kube-apiserver',
    flag: '--insecure-port=0',
    until: '1.20',
    why: 'before 1.20 it serves unauthenticated HTTP on port 8080 by default, which control planes side by side would fight over; 0 by default from 1.20, removed in 1.24',
  },
  {
    binary: 'kube-controller-manager',
    flag: '--port=0',
    until: '1.22',
    why: 'before 1.22 it serves unauthenticated HTTP on port 10252 by default; a no-op in 1.22 and 1.23, removed in 1.24',
  },
  {
    binary: 'kube-scheduler',
    flag: '--port=0',
    until: '1.23',
    why: 'before 1.23 it serves unauthenticated HTTP on port 10251 by default; a no-op in 1.23, removed in 1.24',
  },
  // The CRD apiserver runs alone: admission that needs core kinds (namespaces) or calls webhooks is off. Naming a
  // plugin the binary does not have is an error ("disable-admission-plugins plugin ... is unknown").
  { binary: 'apiextensions-apiserver', flag: '--disable-admission-plugins', item: 'NamespaceLifecycle', why: 'no Namespaces are served to check against' },
  { binary: 'apiextensions-apiserver', flag: '--disable-admission-plugins', item: 'MutatingAdmissionWebhook', why: 'no webhook configurations are served' },
  { binary: 'apiextensions-apiserver', flag: '--disable-admission-plugins', item: 'ValidatingAdmissionWebhook', why: 'no webhook configurations are served' },
  { binary: 'apiextensions-apiserver', flag: '--disable-admission-plugins', item: 'ValidatingAdmissionPolicy', since: '1.26', why: 'no policies are served (the plugin exists from 1.26)' },
  { binary: 'apiextensions-apiserver', flag: '--disable-admission-plugins', item: 'MutatingAdmissionPolicy', since: '1.32', why: 'no policies are served (the plugin exists from 1.32)' },
  {
    binary: 'apiextensions-apiserver',
    flag: '--feature-gates',
    item: 'ShardedListAndWatch=true',
    since: '1.36',
    why: 'KEP-5866 shard selectors on lists and watches, as sharded managers use (the gate exists from 1.36, alpha); naming an unknown gate is an error',
  },
];

/**
 * The flags of {@link VERSIONED_FLAGS} that `binary` at `version` is given: single flags as they are, list items
 * joined into one `--flag=a,b` per flag. An unknown `version` (the binary printed none) gets only the rows without
 * bounds: a flag some versions refuse is not risked.
 */
export function versionedFlags(
  binary: VersionedBinary,
  version: { major: number; minor: number; patch: number } | undefined,
  table: readonly VersionedFlag[] = VERSIONED_FLAGS,
): string[] {
  const flags: string[] = [];
  const lists = new Map<string, string[]>();
  for (const row of table) {
    if (row.binary !== binary || !applies(row, version)) continue;
    if (row.item === undefined) {
      flags.push(row.flag);
      continue;
    }
    const items = lists.get(row.flag);
    if (items) items.push(row.item);
    else {
      lists.set(row.flag, [row.item]);
      flags.push(row.flag); // a placeholder, so that the list keeps its place among the flags
    }
  }
  return flags.map((f) => (lists.has(f) ? `${f}=${lists.get(f)!.join(',')}` : f));
}

/** Whether `row`'s range holds `version` (rows with a bound never hold an unknown version). */
function applies(row: VersionedFlag, version: ReleaseVersion | undefined): boolean {
  if (row.since === undefined && row.until === undefined) return true;
  if (!version) return false;
  if (row.since !== undefined && compareReleaseVersions(version, bound(row.since)) < 0) return false;
  if (row.until !== undefined && compareReleaseVersions(version, bound(row.until)) >= 0) return false;
  return true;
}

function bound(text: string): ReleaseVersion {
  const v = parseReleaseVersion(text);
  if (!v) throw new Error(`envtest: bad version '${text}' in the versioned-flags table`);
  return v;
}
