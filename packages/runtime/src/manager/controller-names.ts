/**
 * Controller names are unique (controller-runtime's `usedNames` in `controller.New`): two controllers with one name
 * would report to the same metric series, workqueue and readiness check. controller-runtime checks per process; here
 * per metrics registry, which is where the series collide — with the default registry (`metricsRegistry`) that is
 * the whole process, as in controller-runtime. A controller built with `skipNameValidation` (tests that build the
 * same controller in several managers of one process) is not checked and holds no name. A name is held from the
 * moment the manager adds the controller until the manager removes it (`Manager.remove`) or has stopped.
 */
import type { Registry } from '../metrics/prom.js';

const used = new WeakMap<Registry, Set<string>>();

/**
 * Throws when a live controller reporting to `registry` holds `name`. The builder asks before it makes the controller
 * (whose metrics and queue would otherwise touch the live one's series); the manager claims the name when it adds it.
 */
export function assertControllerNameFree(registry: Registry, name: string): void {
  if (used.get(registry)?.has(name)) {
    throw new Error(`controller with name ${name} already exists: controller names must be unique to avoid multiple controllers reporting to the same metric (name it with named(), or set skipNameValidation in withOptions() for a controller built again in one process, as in tests)`);
  }
}

/** Holds `name` for a controller reporting to `registry`; throws when another live controller holds it. */
export function claimControllerName(registry: Registry, name: string): void {
  assertControllerNameFree(registry, name);
  let names = used.get(registry);
  if (!names) used.set(registry, (names = new Set()));
  names.add(name);
}

/** Gives `name` back (the controller was removed or its manager stopped). */
export function releaseControllerName(registry: Registry, name: string): void {
  used.get(registry)?.delete(name);
}

/** The names one manager holds: claimed as it adds controllers, given back as it removes them or once it stopped. */
export class HeldControllerNames {
  private readonly held = new Set<string>();

  constructor(private readonly registry: Registry) {}

  /** Claims the name of a controller (`r.name`) unless it skips name validation. */
  claim(r: { readonly name?: string; readonly skipNameValidation?: boolean }): void {
    if (r.skipNameValidation || r.name === undefined) return;
    claimControllerName(this.registry, r.name);
    this.held.add(r.name);
  }

  release(r: { readonly name?: string; readonly skipNameValidation?: boolean }): void {
    if (!r.skipNameValidation && r.name !== undefined && this.held.delete(r.name)) releaseControllerName(this.registry, r.name);
  }

  releaseAll(): void {
    for (const name of this.held) releaseControllerName(this.registry, name);
    this.held.clear();
  }
}
