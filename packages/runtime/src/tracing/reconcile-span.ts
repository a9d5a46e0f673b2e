/**
 * The span of one reconcile (`reconcile <controller>`), and the links to the watch events that enqueued it.
 *
 * Contract:
 * - {@link ReconcileTracing.noteEvent} is called by the controller's sink for each key it enqueues: the current
 *   watch event's link (see event-links.ts) is kept beside the key, outside the queue, so the queue's dedup is
 *   unchanged; events coalesced into one request are all kept (at most {@link MAX_EVENT_LINKS}, the newest dropped).
 * - {@link ReconcileTracing.start} takes the key's links and opens a root span carrying them and the request's
 *   attributes; the reconcile runs in its context (`run`), so the transport's client spans and a user's own spans
 *   nest under it. `end` records the result (`success`, `requeue`, `requeue_after`, `error`, `terminal`, `timeout`),
 *   the error as an exception event with status ERROR, and ends the span.
 * - Tracing off: `noteEvent` keeps nothing, `start` returns undefined; the controller then calls the reconciler
 *   directly.
 */
import type * as OtelApi from '@opentelemetry/api';
import { currentEventLink } from './event-links.js';
import { activeTracing } from './otel.js';
import { recordSpanError } from './span-error.js';

/** Links kept per request: more events than this coalesced into one request are counted, not linked. */
export const MAX_EVENT_LINKS = 64;

/** What a reconcile span says of its request. */
export interface ReconcileSpanInfo {
  namespace: string | undefined;
  name: string;
  reconcileID: string;
  priority: number;
  /** 1 for the first attempt, n + 1 after n rate-limited retries (asked only while tracing is on). */
  attempt: () => number;
}

/** How a reconcile ended, as the span's `kubegen.reconcile.result`. */
export type ReconcileSpanResult = 'success' | 'requeue' | 'requeue_after' | 'error' | 'terminal' | 'timeout';

/** One open reconcile span. */
export interface ReconcileSpan {
  /** `trace_id` / `span_id` for the reconcile's logger. */
  readonly logFields: { trace_id: string; span_id: string };
  /** Whether the span is sampled (exported): only then is its reconcile time an exemplar of the histogram. */
  readonly sampled: boolean;
  /** Runs `fn` with this span current. */
  run<R>(fn: () => R): R;
  /** Records the result (and the error, if any) and ends the span. */
  end(result: ReconcileSpanResult, error?: unknown, requeueAfterMs?: number): void;
}

/** A controller's reconcile spans and pending event links (one per controller). */
export class ReconcileTracing {
  private readonly links = new Map<string, { links: OtelApi.Link[]; dropped: number }>();

  constructor(
    private readonly controller: string,
    private readonly forKind: { group: string; kind: string } | undefined,
    private readonly extraAttributes: Readonly<Record<string, string>> = {},
  ) {}

  /** Keeps the current watch event's link for `key` (nothing when tracing is off or no event is current). */
  noteEvent(key: string): void {
    const link = currentEventLink();
    if (!link) return;
    let entry = this.links.get(key);
    if (!entry) this.links.set(key, (entry = { links: [], dropped: 0 }));
    if (entry.links.length < MAX_EVENT_LINKS) entry.links.push(link);
    else entry.dropped++;
  }

  /** Opens the span of a reconcile of `key`, taking its links; undefined when tracing is off. */
  start(key: string, info: ReconcileSpanInfo): ReconcileSpan | undefined {
    const entry = this.links.get(key);
    if (entry) this.links.delete(key);
    const t = activeTracing();
    if (!t) return undefined;
    const { api } = t;
    const attributes: OtelApi.Attributes = {
      'kubegen.controller': this.controller,
      ...this.extraAttributes,
      ...(this.forKind ? { 'k8s.resource.group': this.forKind.group, 'k8s.resource.kind': this.forKind.kind } : {}),
      ...(info.namespace ? { 'k8s.namespace.name': info.namespace } : {}),
      'k8s.object.name': info.name,
      'kubegen.reconcile_id': info.reconcileID,
      'kubegen.reconcile.priority': info.priority,
      'kubegen.reconcile.attempt': info.attempt(),
      ...(entry && entry.dropped > 0 ? { 'kubegen.reconcile.events_not_linked': entry.dropped } : {}),
    };
    const span = t.tracer.startSpan(`reconcile ${this.controller}`, { kind: api.SpanKind.INTERNAL, root: true, attributes, links: entry?.links ?? [] });
    const ctx = api.trace.setSpan(api.context.active(), span);
    const sc = span.spanContext();
    return {
      logFields: { trace_id: sc.traceId, span_id: sc.spanId },
      sampled: (sc.traceFlags & api.TraceFlags.SAMPLED) !== 0,
      run: (fn) => api.context.with(ctx, fn),
      end: (result, error, requeueAfterMs) => {
        span.setAttribute('kubegen.reconcile.result', result);
        if (requeueAfterMs !== undefined) span.setAttribute('kubegen.reconcile.requeue_after_ms', requeueAfterMs);
        if (error !== undefined) recordSpanError(api, span, error);
        span.end();
      },
    };
  }
}
