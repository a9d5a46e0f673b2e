/**
 * The esbuild plugin that decides, for each of the runtime's optional peer dependencies (OpenTelemetry, undici,
 * certificates), whether the bundle holds it: a peer the project has installed is bundled like any other package (in
 * the chunk of the code that loads it on first use, so it still costs nothing until asked for); a peer it has not
 * installed is left to be loaded by name at run time, where the runtime's loader fails with what to install, as it
 * does from tsc's modules. So a project that installs the tracing SDK gets it in its image's bundle, and one that
 * does not can still bundle.
 *
 * Contract of {@link bundleInstalledPeers}: imports of `peers` (each with its subpaths) that esbuild can resolve from
 * the importing module are resolved as esbuild would; the others are marked external, and their package names added
 * to `left`.
 */
import type { Plugin } from 'esbuild';
import { answerWith, isAsking, resolveWithout } from './resolve-without.js';

const NAME = 'kubegen-optional-peers';

/** The plugin (see the module comment); none of `peers` → a plugin that does nothing. */
export function bundleInstalledPeers(peers: readonly string[], left: Set<string>): Plugin {
  return {
    name: NAME,
    setup(build) {
      if (peers.length === 0) return;
      const filter = new RegExp(`^(${peers.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(?:/|$)`);
      build.onResolve({ filter }, async (args) => {
        if (isAsking(args, NAME)) return undefined;
        const resolved = await resolveWithout(build, args, NAME);
        if (resolved.errors.length === 0) return answerWith(resolved);
        left.add(filter.exec(args.path)![1]!);
        return { path: args.path, external: true };
      });
    },
  };
}
