/**
 * How a bundle plugin asks esbuild to resolve an import as it would without that plugin: the plugins that are
 * already asking travel in the request's `pluginData`, so two plugins that each resolve before deciding never ask
 * each other back and forth.
 */
import type { OnResolveArgs, OnResolveResult, PluginBuild, ResolveResult } from 'esbuild';

const ASKING = Symbol('kubegen-plugins-asking');

/** The request's `pluginData` when plugins are resolving it for themselves. */
interface Asking {
  [ASKING]: ReadonlySet<string>;
}

/** Whether plugin `name` is among those resolving this request for themselves (then it leaves the request alone). */
export function isAsking(args: OnResolveArgs, name: string): boolean {
  const data = args.pluginData as Partial<Asking> | undefined;
  return data?.[ASKING]?.has(name) === true;
}

/** Resolves `args` as esbuild and the other plugins would, without plugin `name` (nor the plugins asking already). */
export function resolveWithout(build: PluginBuild, args: OnResolveArgs, name: string): Promise<ResolveResult> {
  const data = args.pluginData as Partial<Asking> | undefined;
  const asking: Asking = { [ASKING]: new Set([...(data?.[ASKING] ?? []), name]) };
  return build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: asking });
}

/** `resolved` as a plugin's answer to the request: the same path, namespace, externality and side effects. */
export function answerWith(resolved: ResolveResult): OnResolveResult {
  return { path: resolved.path, external: resolved.external, namespace: resolved.namespace, sideEffects: resolved.sideEffects };
}
