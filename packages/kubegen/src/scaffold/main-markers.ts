/**
 * Registering a scaffolded controller in `src/main.ts`: an import line goes above `// +kubegen:scaffold:imports`
 * and a `setup<Kind>Controller(mgr);` line above `// +kubegen:scaffold:controllers`, each with the marker's
 * indentation (kubebuilder's `+kubebuilder:scaffold:*` markers). The user may edit everything else in the file.
 */
import { ScaffoldError } from './errors.js';

export const MAIN_FILE = 'src/main.ts';
export const IMPORTS_MARKER = '// +kubegen:scaffold:imports';
export const CONTROLLERS_MARKER = '// +kubegen:scaffold:controllers';

/** Returns `main` with the controller registered; throws when a marker is missing or the kind is already set up. */
export function insertControllerSetup(main: string, kind: string, modulePath: string, file = MAIN_FILE): string {
  const setup = `setup${kind}Controller`;
  if (new RegExp(`\\b${setup}\\b`).test(main)) throw new ScaffoldError(`${file} already calls ${setup}`);
  let out = insertAbove(main, IMPORTS_MARKER, `import { ${setup} } from '${modulePath}';`, file);
  out = insertAbove(out, CONTROLLERS_MARKER, `${setup}(mgr);`, file);
  return out;
}

/**
 * Inserts `line` (or several, newline-separated) above the line holding `marker`, each with the marker's indentation. A missing marker is a
 * {@link ScaffoldError} that says where to add it (`what` scaffolded: `controller` suggests `--controller=false`).
 */
export function insertAbove(text: string, marker: string, line: string, file: string, what = 'controller'): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim() === marker);
  if (i < 0) {
    const hint = what === 'controller' ? ' (or pass --controller=false)' : ` (projects made by an older kubegen init lack it)`;
    throw new ScaffoldError(`${file} has no "${marker}" line; add it where the ${what} code should go${hint}`);
  }
  const indent = /^\s*/.exec(lines[i]!)![0];
  lines.splice(i, 0, ...line.split('\n').map((l) => (l === '' ? l : indent + l)));
  return lines.join('\n');
}
