/**
 * Name resolution for the TypeScript front end, without the type checker (fast, and independent of how the user's
 * project resolves modules): a type name is looked up among the declarations of its file, then through its imports
 * (relative imports to other files, `@kubegen/runtime`, the built-in API's `@kubegen/runtime/api/<folder>/<version>`)
 * and re-exports.
 */
import * as path from 'node:path';
import { Node } from 'ts-morph';
import type { EnumDeclaration, InterfaceDeclaration, Project, SourceFile, TypeAliasDeclaration } from 'ts-morph';
import { isRuntimeModule } from '../../model/known-types.js';

export type Declaration = InterfaceDeclaration | TypeAliasDeclaration | EnumDeclaration;

export type Resolved =
  | { k: 'decl'; decl: Declaration }
  | { k: 'runtime'; name: string }
  /** A type of the built-in API (`@kubegen/runtime/api/core/v1`'s `PodTemplateSpec`: `dir` is `core/v1`). */
  | { k: 'builtin'; dir: string; name: string }
  | { k: 'class'; node: Node }
  | { k: 'global'; name: string }
  | { k: 'unresolved'; why: string };

const GLOBALS = new Set(['Record', 'Array', 'ReadonlyArray', 'Partial', 'Required', 'Pick', 'Omit', 'Date', 'Map', 'Set', 'Promise', 'Function', 'Object']);

export class Resolver {
  constructor(private readonly project: Project) {}

  /** Resolves the (possibly qualified, `ns.Name`) type name `name` as seen from `file`. */
  resolve(file: SourceFile, name: string, seen = new Set<string>()): Resolved {
    const dot = name.indexOf('.');
    if (dot > 0) {
      const ns = name.slice(0, dot);
      const member = name.slice(dot + 1);
      for (const imp of file.getImportDeclarations()) {
        if (imp.getNamespaceImport()?.getText() === ns) return this.fromModule(file, imp.getModuleSpecifierValue(), member, seen);
      }
      return { k: 'unresolved', why: `cannot resolve namespace ${ns}` };
    }
    const local = this.localDecl(file, name);
    if (local) return local;
    for (const imp of file.getImportDeclarations()) {
      for (const spec of imp.getNamedImports()) {
        const alias = spec.getAliasNode()?.getText() ?? spec.getName();
        if (alias === name) return this.fromModule(file, imp.getModuleSpecifierValue(), spec.getName(), seen);
      }
    }
    if (GLOBALS.has(name)) return { k: 'global', name };
    return { k: 'unresolved', why: `cannot resolve type ${name} (declare it or import it)` };
  }

  private localDecl(file: SourceFile, name: string): Resolved | undefined {
    const decl = file.getInterface(name) ?? file.getTypeAlias(name) ?? file.getEnum(name);
    if (decl) return { k: 'decl', decl };
    const cls = file.getClass(name);
    if (cls) return { k: 'class', node: cls };
    return undefined;
  }

  /** `name` as exported by module `spec` imported from `file`. */
  private fromModule(file: SourceFile, spec: string, name: string, seen: Set<string>): Resolved {
    const api = /^@kubegen\/runtime\/api\/([a-z0-9]+\/v[a-z0-9]+)$/.exec(spec);
    if (api) return { k: 'builtin', dir: api[1]!, name };
    if (isRuntimeModule(spec)) return { k: 'runtime', name };
    if (spec === '@kubernetes/client-node' || spec.startsWith('@kubernetes/client-node/')) {
      const plain = name.replace(/^(?:V\d+(?:alpha\d+|beta\d+)?|CoreV1)(?=[A-Z])/, '');
      return { k: 'unresolved', why: `cannot resolve ${name}: kubegen types the built-in API itself; import ${plain} from '@kubegen/runtime/api/core/v1' (or the group/version it belongs to) instead of @kubernetes/client-node` };
    }
    if (!spec.startsWith('.')) return { k: 'unresolved', why: `cannot resolve ${name}: module ${JSON.stringify(spec)} is not a relative import, @kubegen/runtime or @kubegen/runtime/api/<group>/<version>` };
    const target = this.sourceFileFor(path.dirname(file.getFilePath()), spec);
    if (!target) return { k: 'unresolved', why: `cannot resolve module ${JSON.stringify(spec)}` };
    return this.exported(target, name, seen);
  }

  private exported(file: SourceFile, name: string, seen: Set<string>): Resolved {
    const key = `${file.getFilePath()}#${name}`;
    if (seen.has(key)) return { k: 'unresolved', why: `circular re-export of ${name}` };
    seen.add(key);
    const local = this.localDecl(file, name);
    if (local) return local;
    for (const exp of file.getExportDeclarations()) {
      const spec = exp.getModuleSpecifierValue();
      const named = exp.getNamedExports();
      if (named.length === 0 && spec !== undefined) {
        const r = this.fromModule(file, spec, name, seen);
        if (r.k !== 'unresolved') return r;
        continue;
      }
      for (const n of named) {
        const alias = n.getAliasNode()?.getText() ?? n.getName();
        if (alias !== name) continue;
        return spec !== undefined ? this.fromModule(file, spec, n.getName(), seen) : this.resolve(file, n.getName(), seen);
      }
    }
    // Re-exported imports (`import { X } from './a.js'; export { X };`) are covered above through resolve().
    return { k: 'unresolved', why: `module ${path.basename(file.getFilePath())} does not export ${name}` };
  }

  private sourceFileFor(dir: string, spec: string): SourceFile | undefined {
    const base = path.resolve(dir, spec);
    const stem = base.replace(/\.(js|ts|mjs|mts)$/, '');
    for (const candidate of [`${stem}.ts`, `${stem}.mts`, `${stem}.d.ts`, path.join(base, 'index.ts')]) {
      const sf = this.project.getSourceFile(candidate) ?? this.project.addSourceFileAtPathIfExists(candidate);
      if (sf) return sf;
    }
    return undefined;
  }
}

/** True for a declaration exported from its file. */
export function isExported(node: Node): boolean {
  return Node.isExportable(node) && node.isExported();
}
