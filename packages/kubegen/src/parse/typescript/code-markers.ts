/**
 * Markers that controller-gen reads from any comment (`//`, `/* *\/`, JSDoc) of any `.ts` file under a scanned folder,
 * not from the type they sit on: `+kubebuilder:rbac:groups=,resources=,resourceNames=,verbs=,urls=,namespace=`
 * (permissions, usually on controller code) and `+kubebuilder:webhook:path=,mutating=,failurePolicy=,…` (admission
 * webhooks, usually on webhook code). `scanMarkerSources` reads them from whole folders (`--rbac-source`).
 */
import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../../model/index.js';
import type { AdmissionWebhookSpec, RbacRule, SourceLocation } from '../../model/index.js';
import { parseMarker } from './markers.js';
import type { Marker as ParsedMarker } from './markers.js';

const LINE = /^(\s*(?:\/\/+|\/?\*+)?\s*)\+kubebuilder:(rbac|webhook):/;

/** The RBAC rules and admission webhooks marked in `text` (a file's content, shown as `file` in errors). */
export interface CodeMarkers {
  rbacRules: RbacRule[];
  webhooks: AdmissionWebhookSpec[];
}

/** Every RBAC and webhook marker in `text`, in line order. */
export function scanCodeMarkers(text: string, file: string): CodeMarkers {
  const out: CodeMarkers = { rbacRules: [], webhooks: [] };
  if (!text.includes('+kubebuilder:rbac') && !text.includes('+kubebuilder:webhook')) return out;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '').replace(/\s*\*\/\s*$/, '');
    const m = LINE.exec(line);
    if (!m) return;
    const loc = { file, line: i + 1, column: m[1]!.length + 1 };
    const marker = parseMarker(line.slice(m[1]!.length + 1).trim(), loc);
    if (m[2] === 'rbac') out.rbacRules.push(rbacRule(marker, loc));
    else out.webhooks.push(admissionWebhook(marker, loc));
  });
  return out;
}

const list = (marker: ParsedMarker, k: string): string[] => (marker.args[k] as string[] | undefined) ?? [];

function rbacRule(marker: ParsedMarker, loc: SourceLocation): RbacRule {
  const rule: RbacRule = {
    groups: list(marker, 'groups').map((g) => (g === 'core' ? '' : g)),
    resources: list(marker, 'resources'),
    resourceNames: list(marker, 'resourceNames'),
    verbs: list(marker, 'verbs'),
    urls: list(marker, 'urls'),
  };
  if (rule.verbs.length === 0) throw new InputError(loc, 'malformed marker +kubebuilder:rbac: verbs must not be empty');
  if (rule.urls.length === 0 && rule.resources.length === 0) throw new InputError(loc, 'malformed marker +kubebuilder:rbac: needs resources (or urls)');
  if (typeof marker.args['namespace'] === 'string') rule.namespace = marker.args['namespace'];
  return rule;
}

/** `value` spelled as one of `choices`, case-insensitively (controller-gen accepts `fail` for `Fail`). */
function oneOf<T extends string>(value: unknown, choices: readonly T[], what: string, loc: SourceLocation): T {
  const found = choices.find((c) => typeof value === 'string' && c.toLowerCase() === value.toLowerCase());
  if (!found) throw new InputError(loc, `malformed marker +kubebuilder:webhook: ${what} must be one of ${choices.join(', ')} (got ${JSON.stringify(value)})`);
  return found;
}

function admissionWebhook(marker: ParsedMarker, loc: SourceLocation): AdmissionWebhookSpec {
  const a = marker.args;
  const bad = (msg: string): never => {
    throw new InputError(loc, `malformed marker +kubebuilder:webhook: ${msg}`);
  };
  if (typeof a['path'] !== 'string' && typeof a['url'] !== 'string') bad('needs path (or url)');
  const operations = list(marker, 'verbs').map((v) => (v === '*' ? '*' : oneOf(v, ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const, 'each verb', loc)));
  if (operations.length === 0) bad('verbs must not be empty');
  const spec: AdmissionWebhookSpec = {
    name: a['name'] as string,
    mutating: a['mutating'] as boolean,
    failurePolicy: oneOf(a['failurePolicy'], ['Fail', 'Ignore'] as const, 'failurePolicy', loc),
    sideEffects: a['sideEffects'] === undefined ? 'None' : oneOf(a['sideEffects'], ['None', 'NoneOnDryRun', 'Some', 'Unknown'] as const, 'sideEffects', loc),
    groups: list(marker, 'groups').map((g) => (g === 'core' ? '' : g)),
    resources: list(marker, 'resources'),
    operations,
    versions: list(marker, 'versions'),
    admissionReviewVersions: list(marker, 'admissionReviewVersions'),
    source: loc,
  };
  if (typeof a['path'] === 'string') spec.path = a['path'];
  else spec.url = a['url'] as string;
  if (a['matchPolicy'] !== undefined) spec.matchPolicy = oneOf(a['matchPolicy'], ['Exact', 'Equivalent'] as const, 'matchPolicy', loc);
  if (a['reinvocationPolicy'] !== undefined) spec.reinvocationPolicy = oneOf(a['reinvocationPolicy'], ['Never', 'IfNeeded'] as const, 'reinvocationPolicy', loc);
  if (typeof a['timeoutSeconds'] === 'number') {
    if (a['timeoutSeconds'] < 1 || a['timeoutSeconds'] > 30) bad('timeoutSeconds must be between 1 and 30');
    spec.timeoutSeconds = a['timeoutSeconds'];
  }
  if (spec.reinvocationPolicy && !spec.mutating) bad('reinvocationPolicy is only for mutating webhooks');
  return spec;
}

/**
 * RBAC and webhook markers of every `.ts` file under `dirs` (test files and `node_modules` skipped) not already read
 * (`seen`: the apis and output folders; the files read are added to it). A folder that does not exist is an
 * `InputError` naming it.
 */
export async function scanMarkerSources(dirs: string[], seen: Set<string>): Promise<{ rbacRules: RbacRule[]; webhooks: AdmissionWebhookSpec[] }> {
  const out = { rbacRules: [] as RbacRule[], webhooks: [] as AdmissionWebhookSpec[] };
  for (const dir of dirs) {
    const abs = path.resolve(dir);
    let files: string[];
    try {
      files = await listTsFiles(abs);
    } catch {
      throw new InputError({ file: dir, line: 0, column: 0 }, 'no such folder (an RBAC marker source)');
    }
    for (const f of files) {
      if (seen.has(f)) continue;
      seen.add(f);
      const rel = path.relative(process.cwd(), f);
      const found = scanCodeMarkers(await readFile(f, 'utf8'), rel.startsWith('..') ? f : rel);
      out.rbacRules.push(...found.rbacRules);
      out.webhooks.push(...found.webhooks);
    }
  }
  return out;
}

/** The `.ts` files under `dir`, sorted, without tests (`*.test.ts`, `*.spec.ts`), `node_modules` and dot folders. */
export async function listTsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !e.name.startsWith('.')) out.push(...(await listTsFiles(full)));
    } else if (e.isFile() && /\.m?ts$/.test(e.name) && !/\.(test|spec)\.m?ts$/.test(e.name)) out.push(full);
  }
  return out;
}

