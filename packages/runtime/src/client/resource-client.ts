import type {
  ApplyOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  Patch,
  PatchOptions,
  ResourceInterface,
  Scale,
  ScaleInterface,
  StatusInterface,
  UpdateOptions,
  WatchOptions,
  WriteOptions,
} from './interfaces.js';
import { defaultFieldManager } from './apply.js';
import { buildRequestUrl } from './request-url.js';
import { apiErrorFromResponse } from './response-status.js';
import type { ApplyObject } from './apply.js';
import { apiVersionOf, toPartialObjectMetadata, type KubeList, type KubeObject, type QueryValue, type ResourceInfo, type ResourceRequest, type Transport, type Watch } from './types.js';

/** The page size `listAll` uses when the caller gives no `limit` (client-go's pager default). */
export const DEFAULT_PAGE_SIZE = 500;

/**
 * The generic typed client every generated client is an instance of (as client-go's `gentype.Client`).
 * It implements the status and scale verbs too; generated code exposes them through its interface type only when
 * the CRD declares those subresources. Any other named subresource is reached with `getSubresource`,
 * `createSubresource`, `updateSubresource` and `patchSubresource` (the dynamic client is built on them).
 *
 * `namespace` is required for a namespaced resource's single-object verbs; `''` (or undefined) means all namespaces
 * for `list`, `listAll`, `watch` and `deleteCollection`.
 */
export class ResourceClient<T extends KubeObject, L extends KubeList<T> = KubeList<T>, A extends ApplyObject = Partial<T> & KubeObject>
  implements ResourceInterface<T, L, A>, StatusInterface<T, A>, ScaleInterface
{
  readonly transport: Transport;
  readonly info: ResourceInfo;
  readonly namespace: string | undefined;

  /** `'metadata'`: `get`, `list` and `watch` return metadata only (`ResourceRequest.as`); writes are unchanged. */
  readonly readAs: 'metadata' | undefined;

  constructor(transport: Transport, info: ResourceInfo, namespace?: string, opts: { readAs?: 'metadata' } = {}) {
    this.transport = transport;
    this.info = info;
    this.namespace = info.namespaced && namespace ? namespace : undefined;
    this.readAs = opts.readAs;
  }

  get(name: string, opts: GetOptions = {}): Promise<T> {
    const got = this.send<T>('get', { name, query: { resourceVersion: opts.resourceVersion }, signal: opts.signal });
    return this.readAs ? got.then((o) => toPartialObjectMetadata(o, this.info) as T) : got;
  }

  list(opts: ListOptions = {}): Promise<L> {
    const listed = this.send<L>('list', { query: listQuery(opts), signal: opts.signal });
    if (!this.readAs) return listed;
    // Metadata only: the apiserver answers PartialObjectMetadataList; the items get the kind's own apiVersion/kind.
    return listed.then((l) => ({ ...l, apiVersion: this.apiVersion, kind: this.info.listKind, items: (l.items ?? []).map((o) => toPartialObjectMetadata(o, this.info) as T) }));
  }

  async *listAll(opts: ListOptions = {}): AsyncIterable<T> {
    let cont = opts.continue;
    do {
      const page: L = await this.list({ ...opts, limit: opts.limit ?? DEFAULT_PAGE_SIZE, continue: cont });
      for (const item of page.items ?? []) yield item;
      cont = page.metadata?.continue || undefined;
    } while (cont);
  }

  /** What the transport says (see `Transport.isWatchListSemanticsUnsupported`); false when it says nothing. */
  isWatchListSemanticsUnsupported(): boolean {
    return this.transport.isWatchListSemanticsUnsupported?.() ?? false;
  }

  watch(opts: WatchOptions = {}): Promise<Watch<T>> {
    return this.transport.watch<T>(
      this.request('watch', {
        query: {
          watch: true,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          shardSelector: opts.shardSelector,
          resourceVersion: opts.resourceVersion,
          resourceVersionMatch: opts.resourceVersionMatch,
          allowWatchBookmarks: opts.allowWatchBookmarks,
          timeoutSeconds: opts.timeoutSeconds,
          sendInitialEvents: opts.sendInitialEvents,
        },
        signal: opts.signal,
      }),
    );
  }

  create(obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.send<T>('create', { body: this.withTypeMeta(obj), query: writeQuery(opts), signal: opts.signal, namespaceFrom: obj });
  }

  update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.send<T>('update', { name: nameOf(obj), body: this.withTypeMeta(obj), query: writeQuery(opts), signal: opts.signal, namespaceFrom: obj });
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<void> {
    await this.send('delete', { name, body: deleteBody(opts), query: { dryRun: opts.dryRun ? 'All' : undefined }, signal: opts.signal });
  }

  async deleteCollection(opts: DeleteCollectionOptions = {}): Promise<void> {
    await this.send('deletecollection', {
      body: deleteBody(opts),
      query: { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, dryRun: opts.dryRun ? 'All' : undefined },
      signal: opts.signal,
    });
  }

  patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.send<T>('patch', { name, body: patch.patch, patchType: patch.type, query: writeQuery(opts), signal: opts.signal });
  }

  apply(config: A, opts: ApplyOptions = {}): Promise<T> {
    return this.applyTo(undefined, config, opts);
  }

  getStatus(name: string, opts: GetOptions = {}): Promise<T> {
    return this.getSubresource<T>(name, 'status', opts);
  }

  updateStatus(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.send<T>('update', {
      name: nameOf(obj),
      subresource: 'status',
      body: this.withTypeMeta(obj),
      query: writeQuery(opts),
      signal: opts.signal,
      namespaceFrom: obj,
    });
  }

  patchStatus(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.patchSubresource<T>(name, 'status', patch, opts);
  }

  applyStatus(config: A, opts: ApplyOptions = {}): Promise<T> {
    return this.applyTo('status', config, opts);
  }

  /** The `scale` subresource (autoscaling/v1 `Scale`, or `S` for a kind whose scale is another: apps/v1beta2's). */
  getScale<S extends object = Scale>(name: string, opts: GetOptions = {}): Promise<S> {
    return this.getSubresource<S>(name, 'scale', opts);
  }

  /** Replaces the `scale` subresource; `apiVersion`/`kind` default to autoscaling/v1 `Scale`. */
  updateScale<S extends object = Scale>(name: string, scale: S, opts: UpdateOptions = {}): Promise<S> {
    const body: KubeObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale, metadata: { ...(scale as KubeObject).metadata, name } };
    return this.updateSubresource<S>(name, 'scale', body, opts);
  }

  /**
   * GET of a named subresource of object `name` (`status`, `scale`, a built-in kind's own such as `deployments/scale`
   * or an aggregated API's): the answer as the server gives it, whatever its kind.
   */
  getSubresource<R = unknown>(name: string, subresource: string, opts: GetOptions = {}): Promise<R> {
    return this.send<R>('get', { name, subresource, query: { resourceVersion: opts.resourceVersion }, signal: opts.signal });
  }

  /**
   * POST to a named subresource of object `name` (`pods/eviction`, `serviceaccounts/token`): `body` is sent as given
   * (its kind is the subresource's, not this resource's).
   */
  createSubresource<R = unknown>(name: string, subresource: string, body: KubeObject, opts: CreateOptions = {}): Promise<R> {
    return this.send<R>('create', { name, subresource, body, query: writeQuery(opts), signal: opts.signal, namespaceFrom: body });
  }

  /** PUT of a named subresource of object `name` (`scale` takes an autoscaling/v1 `Scale`): `body` is sent as given. */
  updateSubresource<R = unknown>(name: string, subresource: string, body: KubeObject, opts: UpdateOptions = {}): Promise<R> {
    return this.send<R>('update', { name, subresource, body, query: writeQuery(opts), signal: opts.signal, namespaceFrom: body });
  }

  /** PATCH of a named subresource of object `name` (merge, JSON or strategic; apply with {@link applyStatus}). */
  patchSubresource<R = unknown>(name: string, subresource: string, patch: Patch, opts: PatchOptions = {}): Promise<R> {
    return this.send<R>('patch', { name, subresource, body: patch.patch, patchType: patch.type, query: writeQuery(opts), signal: opts.signal });
  }

  /**
   * Server-side apply of a named subresource of object `name` (`scale`): `config` is sent as given, under the same
   * field manager rules as {@link apply}.
   */
  applySubresource<R = unknown>(name: string, subresource: string, config: ApplyObject, opts: ApplyOptions = {}): Promise<R> {
    return this.send<R>('patch', {
      name,
      subresource,
      body: config,
      patchType: 'apply',
      query: { fieldManager: this.fieldManager(opts), force: opts.force, dryRun: opts.dryRun ? 'All' : undefined },
      signal: opts.signal,
      namespaceFrom: config as KubeObject,
    });
  }

  /**
   * GET of a named subresource of object `name` that answers plain text (`pods/log`), with `query` as its options:
   * the body as UTF-8 text. A status other than 2xx rejects with the server's error.
   */
  async getSubresourceText(name: string, subresource: string, query: Record<string, QueryValue> = {}, signal?: AbortSignal): Promise<string> {
    const req = this.request('get', { name, subresource, query, ...(signal ? { signal } : {}) });
    if (this.info.namespaced && !req.namespace) throw new TypeError(`${this.info.resource}: a namespace is required for get`);
    const res = await this.transport.raw('GET', buildRequestUrl(req), { accept: 'text/plain, */*', ...(signal ? { signal } : {}) });
    if (res.statusCode < 200 || res.statusCode > 299) throw apiErrorFromResponse(res.statusCode, res.body, undefined, req);
    return res.body.toString('utf8');
  }

  /** The `apiVersion` this resource is served under, e.g. `apps/v1` or `v1`. */
  get apiVersion(): string {
    return apiVersionOf(this.info);
  }

  /** The field manager of an apply: the call's, else the transport's, else the program's name. */
  private fieldManager(opts: ApplyOptions): string {
    return opts.fieldManager || this.transport.fieldManager || defaultFieldManager();
  }

  private applyTo(subresource: string | undefined, config: A, opts: ApplyOptions): Promise<T> {
    const obj = config as KubeObject;
    return this.send<T>('patch', {
      name: nameOf(obj),
      subresource,
      body: this.withTypeMeta(obj),
      patchType: 'apply',
      query: { fieldManager: this.fieldManager(opts), force: opts.force, dryRun: opts.dryRun ? 'All' : undefined },
      signal: opts.signal,
      namespaceFrom: obj,
    });
  }

  private withTypeMeta<O extends KubeObject>(obj: O): O {
    if (obj.apiVersion && obj.kind) return obj;
    return { ...obj, apiVersion: obj.apiVersion ?? this.apiVersion, kind: obj.kind ?? this.info.kind };
  }

  private request(
    verb: ResourceRequest['verb'],
    /** `namespaceFrom`: the object written, whose `metadata.namespace` is the request's when the client has none. */
    parts: Omit<ResourceRequest, 'verb' | 'resource' | 'namespace'> & { namespaceFrom?: KubeObject },
  ): ResourceRequest {
    const { namespaceFrom, ...rest } = parts;
    const namespace = this.info.namespaced ? (this.namespace ?? namespaceFrom?.metadata?.namespace) : undefined;
    const req: ResourceRequest = { verb, resource: this.info, ...rest };
    if (namespace) req.namespace = namespace;
    if (this.readAs && (verb === 'get' || verb === 'list' || verb === 'watch') && !req.subresource) req.as = this.readAs;
    return req;
  }

  private send<R>(verb: ResourceRequest['verb'], parts: Parameters<ResourceClient<T, L, A>['request']>[1]): Promise<R> {
    const req = this.request(verb, parts);
    const allNamespacesOk = verb === 'list' || verb === 'watch' || verb === 'deletecollection';
    if (this.info.namespaced && !req.namespace && !allNamespacesOk) {
      return Promise.reject(new TypeError(`${this.info.resource}: a namespace is required for ${verb}`));
    }
    return this.transport.request<R>(req);
  }
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError('metadata.name is required');
  return name;
}

function listQuery(opts: ListOptions): Record<string, QueryValue> {
  return {
    labelSelector: opts.labelSelector,
    fieldSelector: opts.fieldSelector,
    shardSelector: opts.shardSelector,
    limit: opts.limit,
    continue: opts.continue,
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    timeoutSeconds: opts.timeoutSeconds,
  };
}

function writeQuery(opts: WriteOptions): Record<string, QueryValue> {
  return { dryRun: opts.dryRun ? 'All' : undefined, fieldManager: opts.fieldManager, fieldValidation: opts.fieldValidation };
}

function deleteBody(opts: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (opts.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = opts.gracePeriodSeconds;
  if (opts.propagationPolicy) body['propagationPolicy'] = opts.propagationPolicy;
  if (opts.preconditions) body['preconditions'] = opts.preconditions;
  if (opts.dryRun) body['dryRun'] = ['All'];
  return body;
}
