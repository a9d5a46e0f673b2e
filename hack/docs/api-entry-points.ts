/**
 * The public entry points of the API reference (docs/api/) and the TypeDoc modules made of them.
 *
 * An entry point whose index file is split into sections by `//` line comments (the runtime's index.ts: "Clients",
 * "The cache", "Work queues"…) becomes one TypeDoc module, so one page, per section: the re-exports of the section
 * are copied into an entry file of their own whose module comment is the section comment. Every other entry point
 * is one module. Entry files, and the tsconfig.json that puts them into one TypeScript program with the sources,
 * are written into a scratch folder inside the repository (so `@types/node` resolves as it does for the build).
 */
import fs from 'node:fs';
import path from 'node:path';

/** A public entry point: the import specifier users write and the index file it resolves to in the sources. */
export interface ApiEntryPoint {
  module: string;
  /** Repository-relative path of the index file. */
  index: string;
}

/** The packages whose "exports" are documented. */
const PACKAGES = ['packages/runtime', 'packages/kubegen'];

/**
 * The public entry points, from the "exports" of the packages' package.json (`@kubegen/runtime`, its testing entry
 * points, `kubegen`'s generator API; not the `kubegen-internal` paths), so an entry point added there is documented
 * without a change here. The index file is the source of the "types" file (`./dist/x.d.ts` → `src/x.ts`). An entry
 * point that re-exports others (`./testing` is `./testing/envtest` and `./testing/fake`) comes after them, so that
 * they hold the documentation and its page lists references to theirs.
 */
export function publicEntryPoints(repoRoot: string): ApiEntryPoint[] {
  const entries: ApiEntryPoint[] = [];
  for (const pkg of PACKAGES) {
    const json = JSON.parse(fs.readFileSync(path.join(repoRoot, pkg, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
    for (const [subpath, target] of Object.entries(json.exports)) {
      const types = typeof target === 'object' && target !== null ? (target as { types?: unknown }).types : undefined;
      if (subpath.includes('*') || typeof types !== 'string' || !/^\.\/dist\/.*\.d\.ts$/.test(types)) continue;
      const index = `${pkg}/src/${types.slice('./dist/'.length, -'.d.ts'.length)}.ts`;
      entries.push({ module: subpath === '.' ? json.name : `${json.name}/${subpath.slice(2)}`, index });
    }
  }
  const reexported = (aggregate: ApiEntryPoint, part: ApiEntryPoint): boolean => {
    const text = fs.readFileSync(path.join(repoRoot, aggregate.index), 'utf8');
    return [...text.matchAll(/^export \* from ['"](\.[^'"]+)\.js['"]/gm)]
      .some((m) => path.join(path.dirname(aggregate.index), `${m[1]}.ts`) === path.normalize(part.index));
  };
  const ordered: ApiEntryPoint[] = [];
  const place = (entry: ApiEntryPoint): void => {
    if (ordered.includes(entry)) return;
    for (const part of entries) if (part !== entry && reexported(entry, part)) place(part);
    ordered.push(entry);
  };
  for (const entry of entries) place(entry);
  return ordered;
}

/** A section of an index file: its `//` comment and the statements under it. */
export interface IndexSection {
  comment: string;
  statements: string;
}

/**
 * The sections of an index file: a `//` comment at the start of a line opens a section that runs to the next one.
 * Text before the first section (the file's doc comment) is dropped; statements there would start a section
 * without a comment.
 */
export function indexSections(text: string): IndexSection[] {
  const sections: IndexSection[] = [];
  let current: { comment: string; lines: string[] } | undefined;
  let depth = 0;
  const close = (): void => {
    if (current) sections.push({ comment: current.comment, statements: `${current.lines.join('\n').trim()}\n` });
  };
  for (const line of text.split('\n')) {
    const comment = depth === 0 ? /^\/\/ (.+)$/.exec(line) : null;
    if (comment) {
      close();
      current = { comment: comment[1]!.trim(), lines: [] };
      continue;
    }
    depth += (line.match(/[{(]/g) ?? []).length - (line.match(/[})]/g) ?? []).length;
    if (current) current.lines.push(line);
    else if (/^\s*export\b/.test(line)) current = { comment: '', lines: [line] };
  }
  close();
  return sections;
}

/** A section's title: its comment without parenthesised asides, up to a colon ("Clients: transport, …" → "Clients"). */
export function sectionTitle(comment: string): string {
  return comment.replace(/\s*\([^)]*\)/g, '').split(':')[0]!.trim();
}

/** The TypeDoc module of one page: its name, module comment and the entry file's code. */
export interface ApiModule {
  name: string;
  /** The file name of the entry file (also the page's). */
  file: string;
  comment: string;
  code: string;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Re-points the relative module specifiers of `code` (from `fromDir`) so that they resolve from `toDir`. */
function rebase(code: string, fromDir: string, toDir: string): string {
  return code.replace(/(from\s+)(['"])(\.\.?\/[^'"]+)\2/g, (_m, head: string, quote: string, spec: string) => {
    const rel = path.relative(toDir, path.resolve(fromDir, spec)).split(path.sep).join('/');
    return `${head}${quote}${rel.startsWith('.') ? rel : `./${rel}`}${quote}`;
  });
}

/** The doc comment at the top of a file, without its delimiters. */
function fileComment(text: string): string {
  const m = /^\/\*\*([\s\S]*?)\*\//.exec(text.trimStart());
  return m ? m[1]!.split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim() : '';
}

/**
 * The modules of `entries`, their entry files to be written to `dir`: one per section of an index file that has
 * `//` sections, else one per entry point.
 */
export function apiModules(repoRoot: string, entries: readonly ApiEntryPoint[], dir: string): ApiModule[] {
  const modules: ApiModule[] = [];
  for (const entry of entries) {
    const indexPath = path.join(repoRoot, entry.index);
    const text = fs.readFileSync(indexPath, 'utf8');
    const fromDir = path.dirname(indexPath);
    const base = slug(entry.module.replace(/^@kubegen\//, ''));
    const sections = indexSections(text).filter((section) => section.comment);
    if (sections.length === 0) {
      const comment = fileComment(text);
      const code = comment ? text.trimStart().replace(/^\/\*\*[\s\S]*?\*\/\s*/, '') : text;
      modules.push({ name: entry.module, file: `${base}.ts`, comment, code: rebase(code, fromDir, dir) });
      continue;
    }
    for (const section of indexSections(text)) {
      const title = sectionTitle(section.comment) || 'More';
      const file = `${base}/${slug(title)}.ts`;
      modules.push({
        name: `${entry.module}: ${title}`,
        file,
        comment: `${section.comment}. Import from \`${entry.module}\`.`,
        code: rebase(section.statements, fromDir, path.dirname(path.join(dir, file))),
      });
    }
  }
  const files = modules.map((m) => m.file);
  const clash = files.find((f, i) => files.indexOf(f) !== i);
  if (clash) {
    throw new Error(`two sections of an index file would both be the page ${clash.replace(/\.ts$/, '.md')}: give them different comments`);
  }
  return modules;
}

/**
 * Writes the entry files of `modules` and a tsconfig.json (the build's compiler options, the entry files and what
 * they import) into `dir`, a folder inside the repository. Returns the entry files' paths.
 */
export function writeApiModules(repoRoot: string, modules: readonly ApiModule[], dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files = modules.map((m) => {
    const file = path.join(dir, m.file);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const comment = `${m.comment}\n\n@module ${m.name}`.split('\n').map((l) => (l ? ` * ${l}` : ' *')).join('\n');
    fs.writeFileSync(file, `/**\n${comment}\n */\n\n${m.code}`);
    return file;
  });
  const tsconfig = {
    extends: path.relative(dir, path.join(repoRoot, 'tsconfig.base.json')).split(path.sep).join('/'),
    compilerOptions: { noEmit: true, rootDir: path.relative(dir, repoRoot).split(path.sep).join('/') },
    files: modules.map((m) => m.file),
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return files;
}
