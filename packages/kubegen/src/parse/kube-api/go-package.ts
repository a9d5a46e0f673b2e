/**
 * Go packages as the built-in API front end sees them: every declaration of a package's non-test files (files a
 * `//go:build` line excludes from the default build are read only for names the others lack), its package markers
 * (`+groupName=`, `+k8s:openapi-model-package=` from any comment of `doc.go`) and the descriptions of
 * `types_swagger_doc_generated.go` (type → JSON field → text, `''` for the type's own). Packages are read from a
 * GOPATH-style source root (`<root>/k8s.io/api/core/v1`), once each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseGoFile } from '../go/go-decls.js';
import type { GoConst, GoFile, GoTypeDecl } from '../go/go-decls.js';

export interface GoTypeEntry {
  decl: GoTypeDecl;
  file: GoFile;
}

export interface GoPackage {
  /** Import path (`k8s.io/api/core/v1`). */
  path: string;
  dir: string;
  name: string;
  /** Package markers from `doc.go` (`groupName` → [`policy`]). */
  markers: Map<string, string[]>;
  types: Map<string, GoTypeEntry>;
  consts: { c: GoConst; file: GoFile }[];
  /** Type name → JSON field name (`''`: the type) → description, from `types_swagger_doc_generated.go`. */
  docs: Map<string, Map<string, string>>;
}

/** Reads Go packages below `root` (a GOPATH `src` folder), caching each. */
export class GoWorkspace {
  private readonly packages = new Map<string, GoPackage>();

  constructor(readonly root: string) {}

  /** Whether the import path exists below the root. */
  has(importPath: string): boolean {
    return fs.existsSync(path.join(this.root, importPath));
  }

  /** The package at `importPath`; throws when its folder does not exist. */
  load(importPath: string): GoPackage {
    const cached = this.packages.get(importPath);
    if (cached) return cached;
    const dir = path.join(this.root, importPath);
    if (!fs.existsSync(dir)) throw new Error(`Go package ${importPath} not found under ${this.root}`);
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && f !== 'generated.pb.go')
      .sort();
    const pkg: GoPackage = { path: importPath, dir, name: '', markers: new Map(), types: new Map(), consts: [], docs: new Map() };
    const constrained: GoFile[] = [];
    for (const f of files) {
      const full = path.join(dir, f);
      const text = fs.readFileSync(full, 'utf8');
      const parsed = parseGoFile(text, full);
      pkg.name ||= parsed.packageName;
      if (f === 'doc.go') readPackageMarkers(text, pkg.markers);
      if (f === 'types_swagger_doc_generated.go') {
        for (const v of parsed.stringMaps) if (v.name.startsWith('map_')) pkg.docs.set(v.name.slice(4), new Map(v.entries));
        continue;
      }
      if (/^\/\/go:build /m.test(text)) {
        constrained.push(parsed);
        continue;
      }
      addDecls(pkg, parsed);
    }
    for (const parsed of constrained) addDecls(pkg, parsed);
    this.packages.set(importPath, pkg);
    return pkg;
  }
}

function addDecls(pkg: GoPackage, file: GoFile): void {
  for (const decl of file.types) if (!pkg.types.has(decl.name)) pkg.types.set(decl.name, { decl, file });
  for (const c of file.consts) pkg.consts.push({ c, file });
}

function readPackageMarkers(text: string, into: Map<string, string[]>): void {
  for (const m of text.matchAll(/^\/\/\s*\+([\w.:-]+)(?:=(.*))?$/gm)) {
    const list = into.get(m[1]!) ?? [];
    list.push((m[2] ?? '').trim());
    into.set(m[1]!, list);
  }
}

/**
 * The `+name[=value]` markers among comment lines (`// +listType=map` → `listType` → [`map`]); later lines append.
 * Lines are taken as written after the `//`.
 */
export function commentMarkers(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of lines) {
    const m = /^\s*\+([A-Za-z][\w.:/-]*)(?:=(.*))?$/.exec(l);
    if (!m) continue;
    const list = out.get(m[1]!) ?? [];
    list.push((m[2] ?? '').trim());
    out.set(m[1]!, list);
  }
  return out;
}

/** The parts of a struct field's `json:"…"` tag: its name (empty for `,inline` or none) and options. */
export function jsonTag(tag: string): { name: string; omitempty: boolean; inline: boolean; skip: boolean } | undefined {
  const m = /(?:^|\s)json:"([^"]*)"/.exec(tag);
  if (!m) return undefined;
  const [name = '', ...opts] = m[1]!.split(',');
  return { name, omitempty: opts.includes('omitempty') || opts.includes('omitzero'), inline: opts.includes('inline'), skip: name === '-' && opts.length === 0 };
}
