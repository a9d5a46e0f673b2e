/**
 * `kubegen validate --crds DIR… FILE|DIR…`: checks manifests against their CRDs offline, as the apiserver would on
 * create (`@kubegen/runtime/validation`), and prints every problem of the run at once, one line each:
 * `file:line:col: field.path: message` (or one JSON report with `--output json`). Unknown fields are warnings, or
 * errors with `--strict` (what `kubectl apply`'s default strict field validation does). Exit 1 on any error.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Command } from 'commander';
import type { CompileRules, CrdValidator, FieldError } from '@kubegen/runtime/validation';
import { lazyPositions, parseDocuments, type JsonPath, type SourceDoc } from '../parse/crd/yaml-source.js';
import { InputError } from '../model/index.js';
import { ExitCode } from './errors.js';
import type { MainIO } from './io.js';
import { CRD_PATHS_OPTION } from './crd-paths-option.js';

export interface ValidateFlags {
  crds?: string[];
  strict?: boolean;
  output?: string;
}

/** One reported problem, as printed and as the JSON report carries it. */
export interface ValidateProblem {
  file: string;
  line: number;
  column: number;
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  /** The field path in the apiserver's spelling (`spec.replicas`), or '' for a problem with the file itself. */
  path: string;
  /** The apiserver's cause type (`FieldValueInvalid`…), `UnknownField`, or `InputError` for unreadable input. */
  reason: string;
  message: string;
}

export interface ValidateReport {
  objects: number;
  errors: ValidateProblem[];
  warnings: ValidateProblem[];
  /** Documents of kinds no given CRD defines (built-in kinds, other operators'): not checked. */
  skipped: { file: string; line: number; apiVersion: string; kind: string; name?: string }[];
  /** Milliseconds spent reading the CRDs and building their validators, then checking the manifests. */
  timings: { crdsMs: number; manifestsMs: number };
}

const MANIFEST_EXT = /\.(ya?ml|json)$/i;

/** Every manifest file under the given files and folders (folders recursively, sorted). */
async function manifestFiles(paths: readonly string[], cwd: string, problems: ValidateProblem[]): Promise<string[]> {
  const out: string[] = [];
  const visit = async (p: string, explicit: boolean): Promise<void> => {
    let stat;
    try {
      stat = await fs.stat(p);
    } catch {
      problems.push({ file: path.relative(cwd, p) || p, line: 0, column: 0, path: '', reason: 'InputError', message: 'no such file or folder' });
      return;
    }
    if (stat.isDirectory()) {
      for (const e of (await fs.readdir(p)).sort()) await visit(path.join(p, e), false);
    } else if (explicit || MANIFEST_EXT.test(p)) out.push(p);
  };
  for (const p of paths) await visit(path.resolve(cwd, p), true);
  return out;
}

/**
 * A file's documents, and positions in them: the file is re-read once with the position-keeping parser on first need
 * (a `SourceDoc` would re-read it for each of its documents that has an error).
 */
interface FileDocs {
  docs: SourceDoc[];
  locate(doc: SourceDoc, path: JsonPath): { file: string; line: number; column: number };
}

async function readDocs(file: string, cwd: string, problems: ValidateProblem[]): Promise<FileDocs> {
  const shown = path.relative(cwd, file) || file;
  let text: string;
  let docs: SourceDoc[];
  try {
    text = await fs.readFile(file, 'utf8');
    docs = parseDocuments(text, shown);
  } catch (e) {
    if (e instanceof InputError) problems.push({ file: e.location.file, line: e.location.line, column: e.location.column, path: '', reason: 'InputError', message: e.message.replace(/^[^:]+(:\d+:\d+)?(?: \(at [^)]*\))?: /, '') });
    else problems.push({ file: shown, line: 0, column: 0, path: '', reason: 'InputError', message: e instanceof Error ? e.message : String(e) });
    return { docs: [], locate: () => ({ file: shown, line: 0, column: 0 }) };
  }
  const position = lazyPositions(text);
  return {
    docs,
    locate(doc, jsonPath) {
      return { file: shown, ...position(doc.index, jsonPath) };
    },
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * The JSON path in a document of an apiserver field path (`spec.items[0].name`, `spec.labels[a.b]`, `spec.m.a.b` for
 * a map key with dots), resolved against the document so keys with dots and brackets are found; missing tails stay
 * as written (the location falls back to the nearest existing ancestor).
 */
export function fieldPathToJsonPath(value: unknown, fieldPath: string): JsonPath {
  const out: JsonPath = [];
  let rest = fieldPath === '<nil>' ? '' : fieldPath;
  let cur: unknown = value;
  while (rest) {
    if (rest.startsWith('.')) rest = rest.slice(1);
    if (rest.startsWith('[')) {
      const end = rest.indexOf(']');
      const inner = rest.slice(1, end < 0 ? undefined : end);
      const key: string | number = Array.isArray(cur) && /^\d+$/.test(inner) ? Number(inner) : inner;
      out.push(key);
      cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[key] : undefined;
      rest = end < 0 ? '' : rest.slice(end + 1);
      continue;
    }
    let key = '';
    if (isObj(cur)) {
      for (const k of Object.keys(cur)) {
        if ((rest === k || rest.startsWith(`${k}.`) || rest.startsWith(`${k}[`)) && k.length > key.length) key = k;
      }
    }
    if (!key) key = /^[^.[]*/.exec(rest)![0];
    out.push(key);
    cur = isObj(cur) ? cur[key] : undefined;
    rest = rest.slice(key.length);
  }
  return out;
}

/** Validates the manifests; the CEL layer is the runtime's unless `compileRules` is given (tests). */
export async function validateManifests(crdPaths: readonly string[], manifestPaths: readonly string[], cwd: string, options: { strict?: boolean; compileRules?: CompileRules } = {}): Promise<ValidateReport> {
  const { createValidator } = await import('@kubegen/runtime/validation');
  const report: ValidateReport = { objects: 0, errors: [], warnings: [], skipped: [], timings: { crdsMs: 0, manifestsMs: 0 } };
  const started = performance.now();
  const validators = new Map<string, CrdValidator>();
  for (const file of await manifestFiles(crdPaths, cwd, report.errors)) {
    const read = await readDocs(file, cwd, report.errors);
    for (const doc of read.docs) {
      const v = doc.value;
      if (!isObj(v) || v.kind !== 'CustomResourceDefinition') continue;
      try {
        const validator = await createValidator(v as never, options.compileRules ? { compileRules: options.compileRules } : {});
        validators.set(`${validator.group}/${validator.kind}`, validator);
      } catch (e) {
        const loc = read.locate(doc, []);
        report.errors.push({ file: loc.file, line: loc.line, column: loc.column, path: '', reason: 'InputError', message: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  if (validators.size === 0 && report.errors.length === 0) {
    report.errors.push({ file: crdPaths.join(', '), line: 0, column: 0, path: '', reason: 'InputError', message: 'no CustomResourceDefinition found' });
  }
  const crdsDone = performance.now();
  report.timings.crdsMs = Math.round(crdsDone - started);
  for (const file of await manifestFiles(manifestPaths, cwd, report.errors)) {
    const read = await readDocs(file, cwd, report.errors);
    for (const doc of read.docs) validateDoc(doc, (jp) => read.locate(doc, jp), validators, report, options.strict === true);
  }
  report.timings.manifestsMs = Math.round(performance.now() - crdsDone);
  return report;
}

type Locate = (jp: JsonPath) => { file: string; line: number; column: number };

/** Validates one document; a `v1` `List` (what `kubectl get -o yaml` prints) is its items, each located inside it. */
function validateDoc(doc: SourceDoc, at: Locate, validators: Map<string, CrdValidator>, report: ValidateReport, strict: boolean): void {
  const obj = doc.value;
  if (isObj(obj) && obj.kind === 'List' && Array.isArray(obj.items)) {
    obj.items.forEach((item, i) => validateObject(item, doc.file, (jp) => at(['items', i, ...jp]), validators, report, strict));
    return;
  }
  validateObject(obj, doc.file, at, validators, report, strict);
}

function validateObject(obj: unknown, file: string, at: Locate, validators: Map<string, CrdValidator>, report: ValidateReport, strict: boolean): void {
  if (!isObj(obj)) {
    const loc = at([]);
    report.errors.push({ file: loc.file, line: loc.line, column: loc.column, path: '', reason: 'InputError', message: 'a manifest must be an object' });
    return;
  }
  const apiVersion = str(obj.apiVersion) ?? '';
  const kind = str(obj.kind) ?? '';
  if (kind === 'CustomResourceDefinition') return;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  const validator = validators.get(`${group}/${kind}`);
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const identity = { apiVersion, kind, ...(str(meta.namespace) ? { namespace: str(meta.namespace)! } : {}), ...(str(meta.name) ? { name: str(meta.name)! } : {}) };
  if (!validator) {
    report.skipped.push({ file, line: at([]).line, apiVersion, kind, ...(identity.name ? { name: identity.name } : {}) });
    return;
  }
  report.objects++;
  const result = validator.validate(obj, { namespace: 'default' });
  const problem = (e: { path: string; reason: string; message: string }): ValidateProblem => {
    const loc = at(fieldPathToJsonPath(obj, e.path));
    return { file: loc.file, line: loc.line, column: loc.column, ...identity, path: e.path, reason: e.reason, message: e.message };
  };
  const unknown = result.unknownFields.map((f) => problem({ path: f, reason: 'UnknownField', message: `unknown field "${f}"` }));
  // Strict field validation refuses the request while decoding it (a 400 naming the unknown fields): the schema and
  // its rules never run, so nothing else is reported.
  if (strict && unknown.length > 0) {
    report.errors.push(...unknown);
    return;
  }
  for (const e of result.errors as FieldError[]) report.errors.push(problem(e));
  report.warnings.push(...unknown);
}

/** `file:line:col: field.path: message`. */
export function formatProblem(p: ValidateProblem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.column > 0 ? p.column : 1}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** Adds `validate` to the command tree. */
export function addValidateCommand(program: Command, io: MainIO, setExit: (code: number) => void): void {
  program
    .command('validate')
    .description('check manifests against their CRDs offline, as the apiserver would on create; every error as file:line:col: field.path: message, exit 1 on any')
    .argument('<manifests...>', 'manifest files or folders (YAML or JSON, many documents per file)')
    .requiredOption(...CRD_PATHS_OPTION)
    .option('--strict', 'unknown fields are errors (kubectl apply\'s default), not warnings')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (manifests: string[], flags: ValidateFlags) => {
      if (flags.output !== 'text' && flags.output !== 'json') {
        io.stderr.write(`error: --output must be text or json, not ${flags.output}\n`);
        setExit(ExitCode.usage);
        return;
      }
      const report = await validateManifests(flags.crds ?? [], manifests, io.cwd, { strict: flags.strict === true });
      if (flags.output === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      else {
        for (const p of report.errors) io.stdout(`${formatProblem(p)}\n`);
        for (const p of report.warnings) io.stderr.write(`warning: ${formatProblem(p)}\n`);
        const skipped = report.skipped.length ? `, ${report.skipped.length} skipped (no CRD for their kind)` : '';
        io.stderr.write(`${report.objects} objects checked, ${report.errors.length} errors, ${report.warnings.length} warnings${skipped}\n`);
      }
      setExit(report.errors.length ? ExitCode.failure : ExitCode.ok);
    });
}
