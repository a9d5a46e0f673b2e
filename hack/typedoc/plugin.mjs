// TypeDoc plugin of `npm run docs` (see hack/docs/typedoc.ts), loaded by the TypeDoc of this folder.
//
// 1. Every export of a public entry point has a doc comment: an export without one is an error naming the module,
//    the export and its file and line, and TypeDoc exits non-zero before writing anything. (TypeDoc's own
//    `notDocumented` validation cannot be limited to exports: asking for functions also asks for every method.)
// 2. One page per module, named after its entry file (hack/docs/api-entry-points.ts names them: runtime/clients.ts
//    becomes runtime/clients.md), instead of a name made of the module's title.
// 3. Union members in a stable order (by their text; `null` and `undefined` last, as TypeDoc puts them). TypeDoc
//    lists a union as the checker holds it, ordered by type creation, which follows the order the checker met the
//    types in; an unrelated change elsewhere could reorder `KubeConfig | RestConfig` and make the reference stale.
// 4. The pages carry no source locations: a "Defined in: file.ts:123" line would make the reference stale whenever
//    a line is added above a declaration, and a link to a git revision would differ between checkouts. The
//    locations are read for the check, then dropped before rendering.
import path from 'node:path';
import { Application, Converter, ReflectionKind, Renderer, Type, UnionType } from 'typedoc';
import { ModuleRouter } from 'typedoc-plugin-markdown';

/** @param {import('typedoc').Reflection} r */
function documented(r) {
  if (r.hasComment()) return true;
  const signatures = [...(r.signatures ?? []), r.getSignature, r.setSignature].filter(Boolean);
  return signatures.some((s) => s.hasComment());
}

/** @param {Type} t */
function unionRank(t) {
  if (t.type === 'literal' && t.value === null) return 1;
  if (t.type === 'intrinsic' && t.name === 'undefined') return 2;
  return 0;
}

/** Sorts the members of every union in `value` (a type, or an array of types), depth first. @param {unknown} value */
function sortUnions(value) {
  if (Array.isArray(value)) {
    for (const v of value) sortUnions(v);
    return;
  }
  if (!(value instanceof Type)) return;
  for (const child of Object.values(value)) sortUnions(child);
  if (value instanceof UnionType) {
    const text = new Map(value.types.map((t) => [t, t.toString()]));
    value.types.sort((a, b) => unionRank(a) - unionRank(b) || (text.get(a) < text.get(b) ? -1 : text.get(a) > text.get(b) ? 1 : 0));
  }
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    // Every entry point is a module (`alwaysCreateEntryPointModule`), its exports are the module's children.
    for (const mod of project.children ?? []) {
      for (const r of mod.children ?? []) {
        if (r.kindOf(ReflectionKind.Reference) || documented(r)) continue;
        const source = r.sources?.[0] ?? r.signatures?.[0]?.sources?.[0];
        // No source: the entry file re-exports a name TypeScript could not resolve (TypeDoc skips the type check,
        // which the build does; see typedoc.json).
        const at = source ? ` (${source.fileName}:${source.line})` : ' (no declaration found: is it exported where the index says?)';
        app.logger.error(`${mod.name}: export ${r.name}${at} has no doc comment`);
      }
    }
  });
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const r of Object.values(context.project.reflections)) {
      for (const v of Object.values(r)) sortUnions(v);
    }
  });
  // The entry files are in the folder of the tsconfig.json the docs script writes.
  class EntryFileRouter extends ModuleRouter {
    getIdealBaseName(reflection) {
      const entry = reflection.kindOf(ReflectionKind.Module) ? reflection.sources?.[0]?.fullFileName : undefined;
      if (!entry) return super.getIdealBaseName(reflection);
      return path.relative(path.dirname(app.options.getValue('tsconfig')), entry).replace(/\.ts$/, '').split(path.sep).join('/');
    }
  }
  app.renderer.defineRouter('entry-file', EntryFileRouter);
  app.renderer.on(Renderer.EVENT_BEGIN, (event) => {
    for (const r of Object.values(event.project.reflections)) delete r.sources;
  });
}
