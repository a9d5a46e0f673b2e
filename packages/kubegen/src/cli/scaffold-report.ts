/**
 * What the scaffolding commands print: every file created and every file edited with the lines added (`create api`,
 * also with `--dry-run`, before anything is written), every file removed or reverted and every file left alone
 * (`delete api`), then what remains for the user to do.
 */
import type { DeleteApiResult, ScaffoldResult } from '../scaffold/index.js';
import { PROJECT_FILE } from '../scaffold/index.js';

/** `init`, `create api`, `create webhook`: `what` is the headline, `next` the last line. */
export function formatScaffoldResult(what: string, res: ScaffoldResult, next: string, dryRun = false): string {
  const out: string[] = [dryRun ? `${what} would change ${res.root} (--dry-run: nothing written)` : `${what} in ${res.root}`];
  for (const f of res.written) out.push(`  ${dryRun ? 'would create' : 'created'} ${f}`);
  for (const f of res.edited) {
    out.push(`  ${dryRun ? 'would update' : 'updated'} ${f}`);
    for (const line of res.inserted?.find((i) => i.file === f)?.lines ?? []) out.push(`    + ${line}`);
    if (f === PROJECT_FILE && res.inserted !== undefined) out.push('    + the kind, and a record of all of the above (what kubegen delete api undoes)');
  }
  out.push(next);
  return `${out.join('\n')}\n`;
}

/** `delete api`; `runGenerate` is how the project runs the generator (`npm run generate`). */
export function formatDeleteResult(res: DeleteApiResult, dryRun: boolean, runGenerate = 'npm run generate'): string {
  const out: string[] = [dryRun ? `delete api would change ${res.root} (--dry-run: nothing changed)` : `deleted kind ${res.kind} in ${res.root}`];
  const verb = (done: string, would: string): string => (dryRun ? would : done);
  for (const f of res.removed) out.push(`  ${verb('removed', 'would remove')} ${f}`);
  for (const r of res.reverted) {
    out.push(`  ${verb('reverted', 'would revert')} ${r.file}`);
    for (const line of r.lines) out.push(`    - ${line}`);
  }
  out.push(`  ${verb('updated', 'would update')} ${PROJECT_FILE}`, `    - the kind ${res.kind} and its record`);
  for (const d of res.removedFolders) out.push(`  ${verb('removed', 'would remove')} folder ${d}/`);
  if (res.kept.length > 0) {
    out.push(`left alone, changed since create api (delete or fix them yourself):`);
    for (const k of res.kept) {
      out.push(`  ${k.file}: ${k.reason}${k.lines ? '; lines to remove:' : ''}`);
      for (const line of k.lines ?? []) out.push(`    - ${line}`);
    }
  }
  if (res.generated.length === 0) out.push('next: nothing was generated for it yet');
  else if (res.remainingKinds > 0) out.push(`next: ${runGenerate}, which updates or removes its generated files (${res.generated.join(', ')})`);
  else {
    out.push(
      `next: no kind is left for ${runGenerate} to generate; once you create the kind you meant it prunes ${res.generated.join(', ')} ` +
        `(or delete them yourself)`,
    );
  }
  return `${out.join('\n')}\n`;
}
