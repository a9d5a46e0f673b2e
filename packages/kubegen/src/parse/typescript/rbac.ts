/**
 * `+kubebuilder:rbac:groups=,resources=,resourceNames=,verbs=,urls=,namespace=` markers, found in any comment
 * (`//`, `/* *\/`, JSDoc) of any `.ts` file under a scanned folder (controller-gen reads them from controller code).
 */
import { InputError } from '../../model/index.js';
import type { RbacRule } from '../../model/index.js';
import { parseMarker } from './markers.js';

const LINE = /^(\s*(?:\/\/+|\/?\*+)?\s*)\+kubebuilder:rbac:/;

/** Every RBAC marker in `text` (a file's content, shown as `file` in errors). */
export function scanRbacMarkers(text: string, file: string): RbacRule[] {
  const out: RbacRule[] = [];
  if (!text.includes('+kubebuilder:rbac')) return out;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '').replace(/\s*\*\/\s*$/, '');
    const m = LINE.exec(line);
    if (!m) return;
    const loc = { file, line: i + 1, column: m[1]!.length + 1 };
    const marker = parseMarker(line.slice(m[1]!.length + 1).trim(), loc);
    const list = (k: string): string[] => (marker.args[k] as string[] | undefined) ?? [];
    const rule: RbacRule = {
      groups: list('groups').map((g) => (g === 'core' ? '' : g)),
      resources: list('resources'),
      resourceNames: list('resourceNames'),
      verbs: list('verbs'),
      urls: list('urls'),
    };
    if (rule.verbs.length === 0) throw new InputError(loc, 'malformed marker +kubebuilder:rbac: verbs must not be empty');
    if (rule.urls.length === 0 && rule.resources.length === 0) throw new InputError(loc, 'malformed marker +kubebuilder:rbac: needs resources (or urls)');
    if (typeof marker.args['namespace'] === 'string') rule.namespace = marker.args['namespace'];
    out.push(rule);
  });
  return out;
}
