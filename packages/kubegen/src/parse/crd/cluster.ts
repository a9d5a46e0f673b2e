/**
 * CRDs read from a live cluster (`kubegen generate --from-cluster`) into the same model as CRD files, through the
 * same parsing and validation: only the source differs. A CRD from a cluster is named `cluster:<name>` in messages
 * (`cluster:foos.samplecontroller.k8s.io (at spec.versions[0].schema.openAPIV3Schema)`), where a file would give its
 * path and line.
 *
 * What the server adds is dropped first ({@link definitionOf}): `status`, and every server-set field of `metadata`
 * (uid, resourceVersion, generation, creationTimestamp, managedFields…) and kubectl's last-applied annotation, so the
 * model carries the definition as it was written. The server does not keep the order of a schema's properties (it
 * returns them sorted by name): types generated from a cluster list fields alphabetically, as they are in CRDs
 * controller-gen writes; a hand-written file in another order generates the same types with fields in its order.
 */
import { InputError, InputErrors, sortModel } from '../../model/index.js';
import type { ApiModel, ResourceModel } from '../../model/index.js';
import { documentToResources } from './crd.js';
import { SourceDoc } from './yaml-source.js';

/** How messages name a CRD read from a cluster: `cluster:foos.samplecontroller.k8s.io`. */
export function clusterSource(name: string): string {
  return `cluster:${name}`;
}

/** kubectl's copy of the last applied configuration: client bookkeeping, not part of the definition. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The definition a CRD object read from a server holds: `apiVersion`, `kind`, `spec`, and of `metadata` only the
 * name, labels and annotations (without kubectl's last-applied-configuration). Returns a new object; `spec` is shared.
 */
export function definitionOf(crd: Record<string, unknown>): Record<string, unknown> {
  const meta = isObj(crd['metadata']) ? crd['metadata'] : {};
  const metadata: Record<string, unknown> = { name: meta['name'] };
  if (isObj(meta['labels']) && Object.keys(meta['labels']).length > 0) metadata['labels'] = meta['labels'];
  if (isObj(meta['annotations'])) {
    const annotations = Object.fromEntries(Object.entries(meta['annotations']).filter(([k]) => k !== LAST_APPLIED));
    if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  }
  return { apiVersion: crd['apiVersion'], kind: crd['kind'], metadata, spec: crd['spec'] };
}

/**
 * Parses CRD objects read from a cluster (whole objects as the server returns them; see {@link definitionOf}) into
 * the sorted model. Every CRD that fails is reported, all at once (an `InputErrors`, or the one `InputError`).
 */
export function parseCrdObjects(crds: readonly Record<string, unknown>[]): ApiModel {
  const resources: ResourceModel[] = [];
  const errors: InputError[] = [];
  for (const crd of crds) {
    const meta = isObj(crd['metadata']) ? crd['metadata'] : {};
    const name = typeof meta['name'] === 'string' ? meta['name'] : '(unnamed)';
    try {
      resources.push(...documentToResources(SourceDoc.fromObject(clusterSource(name), definitionOf(crd))));
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      errors.push(err);
    }
  }
  InputErrors.throwIfAny(errors);
  return sortModel({ resources });
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
