/**
 * The janitor's own Prometheus series, on the manager's registry (served on `--metrics-bind-address` next to the
 * runtime's `controller_runtime_*`, `workqueue_*` and `kubegen_source_kind_served`, one controller per resource):
 *
 * - `ttl_janitor_objects_deleted_total{resource, dry_run}`: objects whose TTL ran out, deleted (`dry_run="false"`)
 *   or only reported by `--dry-run` (`"true"`);
 * - `ttl_janitor_invalid_ttl_total{resource}`: reconciles that met an annotation that is not a TTL;
 * - `ttl_janitor_kinds_watched`: resources the janitor watches now;
 * - `ttl_janitor_kind_watched{resource}`: 1 for each watched resource, 0 for one it may not list, watch or delete
 *   (skipped); the series goes when the resource is no longer served.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The janitor's metrics (see the module comment). */
export interface JanitorMetrics {
  deleted: Counter<'resource' | 'dry_run'>;
  invalidTtl: Counter<'resource'>;
  kindsWatched: Gauge;
  kindWatched: Gauge<'resource'>;
}

/** Registers the janitor's metrics on `registry` (once per registry). */
export function janitorMetrics(registry: Registry): JanitorMetrics {
  const registers = [registry];
  return {
    deleted: new Counter({ name: 'ttl_janitor_objects_deleted_total', help: 'Objects whose janitor.kubegen.io/ttl ran out: deleted (dry_run="false") or reported by --dry-run ("true")', labelNames: ['resource', 'dry_run'] as const, registers }),
    invalidTtl: new Counter({ name: 'ttl_janitor_invalid_ttl_total', help: 'Reconciles that met a janitor.kubegen.io/ttl annotation that is not a TTL', labelNames: ['resource'] as const, registers }),
    kindsWatched: new Gauge({ name: 'ttl_janitor_kinds_watched', help: 'Resources (kinds) the janitor watches', registers }),
    kindWatched: new Gauge({ name: 'ttl_janitor_kind_watched', help: 'Per resource the janitor may handle: 1 watched, 0 skipped (it may not list, watch or delete it)', labelNames: ['resource'] as const, registers }),
  };
}
