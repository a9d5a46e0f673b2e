/**
 * Scaffold templates: plain files under the package's `templates/` folder with `{{name}}` placeholders. Values are
 * substituted verbatim, so callers pass only names validated by `names.ts` (or text built from them). A placeholder
 * without a value, or a value no placeholder uses, is a bug in kubegen and throws.
 */
import { readFileSync } from 'node:fs';

/** `templates/` of the kubegen package (this file is `dist/src/scaffold/render.js`). */
export const TEMPLATES_DIR = new URL('../../templates/', import.meta.url);

const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9]*)\}\}/g;

/** Substitutes every `{{name}}` in `text` from `values`. */
export function renderText(text: string, values: Readonly<Record<string, string>>, what = 'template'): string {
  const unused = new Set(Object.keys(values));
  const out = text.replace(PLACEHOLDER, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`${what}: no value for {{${name}}}`);
    unused.delete(name);
    return v;
  });
  if (unused.size > 0) throw new Error(`${what}: unused values ${[...unused].join(', ')}`);
  return out;
}

/** Reads `templates/<name>` and renders it. */
export function renderTemplate(name: string, values: Readonly<Record<string, string>> = {}): string {
  const text = readFileSync(new URL(name, TEMPLATES_DIR), 'utf8');
  return renderText(text, values, `templates/${name}`);
}
