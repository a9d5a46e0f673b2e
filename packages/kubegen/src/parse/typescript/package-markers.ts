/**
 * Package-level markers: those in the leading JSDoc blocks of the files of one folder (the TypeScript stand-in for a
 * Go package's doc comment, conventionally `doc.ts`). `+groupName` and `+versionName` name the group version,
 * `+groupGoName` the group's accessors in generated code (client-go's marker);
 * `+kubebuilder:validation:Optional` / `+kubebuilder:validation:Required` set whether a field without `?`, `+optional`
 * or `+required` is required (controller-gen `pkg/crd/markers/package.go`; the default is required). Pure reads of
 * the source files; conflicting markers are an `InputError` at the second one.
 */
import * as path from 'node:path';
import type { SourceFile } from 'ts-morph';
import { InputError } from '../../model/index.js';
import { parseDocComment } from './markers.js';
import type { Marker } from './markers.js';

const V = 'kubebuilder:validation:';
/** The markers read at package level. */
export const PACKAGE_MARKERS: ReadonlySet<string> = new Set(['groupName', 'groupGoName', 'versionName', `${V}Optional`, `${V}Required`]);
/** Package-level markers that mean something else on a declaration or field, so they are checked by position there. */
export const DEFAULT_MODE_MARKERS: ReadonlySet<string> = new Set([`${V}Optional`, `${V}Required`]);

/** The start of `sf`'s first statement (after its leading comments), as 1-based line and column. */
function firstStatementPos(sf: SourceFile): { line: number; column: number } {
  const first = sf.getStatements()[0];
  if (!first) return { line: Number.MAX_SAFE_INTEGER, column: 0 };
  return sf.getLineAndColumnAtPos(first.getStart());
}

/** True when a marker at `loc` (a line and column in `sf`) lies in the file's leading comment blocks. */
export function isLeading(sf: SourceFile, loc: { line: number; column: number }): boolean {
  const p = firstStatementPos(sf);
  return loc.line < p.line || (loc.line === p.line && loc.column < p.column);
}

/** Package-level markers of the leading JSDoc blocks of each of `files` (in file name order). */
export function packageMarkers(files: readonly SourceFile[], display: (f: string) => string): Marker[] {
  const out: Marker[] = [];
  for (const sf of [...files].sort((a, b) => (a.getFilePath() < b.getFilePath() ? -1 : 1))) {
    const text = sf.getFullText();
    const re = /\s*(\/\*\*[\s\S]*?\*\/|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)/y;
    let m: RegExpExecArray | null;
    re.lastIndex = 0;
    while ((m = re.exec(text))) {
      const block = m[1]!;
      if (!block.startsWith('/**')) continue;
      const start = m.index + m[0].length - block.length;
      const { line, column } = sf.getLineAndColumnAtPos(start);
      const doc = parseDocComment(block, display(sf.getFilePath()), line, column);
      out.push(...doc.markers.filter((mk) => PACKAGE_MARKERS.has(mk.name)));
    }
  }
  return out;
}

/**
 * Per folder: whether fields default to optional (`+kubebuilder:validation:Optional` at package level). A folder with
 * both `Optional` and `Required` is an error.
 */
export function optionalByDefault(files: readonly SourceFile[], display: (f: string) => string): Map<string, boolean> {
  const byFolder = new Map<string, SourceFile[]>();
  for (const sf of files) {
    const folder = path.dirname(sf.getFilePath());
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), sf]);
  }
  const out = new Map<string, boolean>();
  for (const [folder, folderFiles] of byFolder) {
    const modes = packageMarkers(folderFiles, display).filter((m) => DEFAULT_MODE_MARKERS.has(m.name));
    const distinct = new Set(modes.map((m) => m.name));
    if (distinct.size > 1) {
      const second = modes.find((m) => m.name !== modes[0]!.name)!;
      throw new InputError(second.loc, `conflicting package markers +${modes[0]!.name} and +${second.name} in ${display(folder)}: fields default to one or the other`);
    }
    out.set(folder, modes.length > 0 && modes[0]!.name === `${V}Optional`);
  }
  return out;
}
