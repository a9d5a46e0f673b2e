/**
 * Conversion webhooks (controller-runtime `pkg/webhook/conversion`): a CRD with several versions and
 * `spec.conversion.strategy: Webhook` sends `ConversionReview` (apiextensions.k8s.io/v1) requests whenever an object
 * must be read or written in a version other than the one it is stored in.
 *
 * Conversion goes through a **hub** version (usually the storage version): each other version (a **spoke**) says
 * how to convert itself to the hub (`convertTo`) and from it (`convertFrom`). Any version converts to any other in
 * at most two steps: spoke → hub → spoke. Converters get deep copies and must not depend on anything but their
 * input; they must round-trip without loss (keep fields a version cannot express in annotations, as Kubernetes'
 * own conversions do). A thrown error fails the whole review with its message.
 */
import type { KubeObject } from '../client/types.js';
import { deepCopyJSON } from '../deepcopy.js';

/** How one spoke version converts to and from the hub. */
export interface SpokeConversion<Spoke extends KubeObject = KubeObject, Hub extends KubeObject = KubeObject> {
  convertTo(spoke: Spoke): Hub;
  convertFrom(hub: Hub): Spoke;
}

/** What `conversionWebhook` converts between: the hub version and a converter per spoke version. */
export interface ConversionOptions {
  /** The hub's `apiVersion`, e.g. `samplecontroller.k8s.io/v1alpha1`. */
  hub: string;
  /** Converters per spoke `apiVersion`, e.g. `{ 'samplecontroller.k8s.io/v1': { convertTo, convertFrom } }`. */
  spokes: Record<string, SpokeConversion>;
}

/** `apiextensions.k8s.io/v1` ConversionRequest. */
export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

/** `apiextensions.k8s.io/v1` ConversionResponse (without `uid`). */
export interface ConversionResponse {
  convertedObjects: KubeObject[];
  result: { status: 'Success' | 'Failure'; message?: string };
}

/** Converts objects for one CRD through a hub. */
export class ConversionHandler {
  constructor(private readonly opts: ConversionOptions) {
    for (const v of Object.keys(opts.spokes)) if (v === opts.hub) throw new TypeError(`${v} is the hub; it cannot also be a spoke`);
  }

  /** The versions this handler converts between. */
  versions(): string[] {
    return [this.opts.hub, ...Object.keys(this.opts.spokes)];
  }

  /** Converts every object to `desiredAPIVersion`; a failure for one fails the review (as the apiserver expects). */
  convert(req: ConversionRequest): ConversionResponse {
    try {
      const convertedObjects = req.objects.map((o) => this.convertOne(o, req.desiredAPIVersion));
      return { convertedObjects, result: { status: 'Success' } };
    } catch (err) {
      return { convertedObjects: [], result: { status: 'Failure', message: err instanceof Error ? err.message : String(err) } };
    }
  }

  private convertOne(obj: KubeObject, to: string): KubeObject {
    const from = obj.apiVersion;
    if (typeof from !== 'string' || from === '') throw new Error(`object ${obj.metadata?.name ?? '(unnamed)'} has no apiVersion`);
    if (from === to) return obj;
    const known = this.versions();
    for (const v of [from, to]) if (!known.includes(v)) throw new Error(`cannot convert ${from} to ${to}: ${v} is not one of ${known.join(', ')}`);
    const hub = from === this.opts.hub ? deepCopyJSON(obj) : this.spoke(from).convertTo(deepCopyJSON(obj) as never);
    const out = to === this.opts.hub ? hub : this.spoke(to).convertFrom(deepCopyJSON(hub) as never);
    const result = out as KubeObject;
    // A forgotten apiVersion would make the apiserver refuse the whole list: set it. Of the metadata, converters
    // may change labels and annotations only (where lossy fields are kept); the apiserver refuses other changes.
    result.apiVersion = to;
    if (result.kind === undefined && obj.kind !== undefined) result.kind = obj.kind;
    if (obj.metadata !== undefined) {
      const m = result.metadata ?? {};
      const meta = { ...obj.metadata };
      for (const k of ['labels', 'annotations'] as const) {
        if (Object.hasOwn(m, k)) {
          if (m[k] === undefined) delete meta[k];
          else meta[k] = m[k];
        }
      }
      result.metadata = meta;
    }
    return result;
  }

  private spoke(version: string): SpokeConversion<KubeObject, KubeObject> {
    return this.opts.spokes[version] as unknown as SpokeConversion<KubeObject, KubeObject>;
  }
}

/** A conversion webhook handler (serve it at the path the CRD's `spec.conversion.webhook` names, e.g. `/convert`). */
export function conversionWebhook(opts: ConversionOptions): ConversionHandler {
  return new ConversionHandler(opts);
}
