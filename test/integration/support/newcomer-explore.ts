/**
 * `npm run explore` in the newcomer's project (issue 42, Done when): as scaffolded it exits 0; with the controller
 * broken on purpose — it creates a child with a generated name and remembers the name only in a second write, so a
 * crash between the two writes leaks a child that no later reconcile knows of — it exits 1 with a report naming the
 * crash point. The controller's source is restored (and the project rebuilt by the next `npm run`) whatever happens.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { run } from './newcomer.js';

/** The project's kind with a controller, its group's generated folder and a cluster-scoped kind of the same group. */
export interface ExploreProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** `Frigate`: the kind whose controller is scaffolded. */
  kind: string;
  /** `Fleet`: a cluster-scoped kind of the same group and version the broken controller creates with generated names. */
  childKind: string;
  /** The apiVersion of both kinds. */
  apiVersion: string;
}

/** What the two runs printed, for the test's diagnostics. */
export interface ExploreRuns {
  passed: string;
  broken: string;
}

const lower = (s: string): string => s[0]!.toLowerCase() + s.slice(1);

/** Runs `npm run explore` as scaffolded (exit 0) and with the controller broken on purpose (exit 1, the crash named). */
export function exploreAsScaffoldedAndBroken(p: ExploreProject): ExploreRuns {
  const passed = run('npm', ['run', 'explore', '--', '--report', 'explore-report.json'], { cwd: p.dir, env: p.env, timeoutMs: 240_000 });
  const report = JSON.parse(fs.readFileSync(path.join(p.dir, 'explore-report.json'), 'utf8')) as { faults: Record<string, { tried: number }>; divergences: unknown[] };
  assert.deepEqual(report.divergences, [], passed.stdout);
  assert.ok((report.faults['crash']?.tried ?? 0) > 0, `crash points were tried: ${JSON.stringify(report.faults)}`);

  const file = path.join(p.dir, `src/controllers/${p.kind.toLowerCase()}-controller.ts`);
  const source = fs.readFileSync(file, 'utf8');
  const kindConst = `${lower(p.kind)}Resource`;
  const childConst = `${lower(p.childKind)}Resource`;
  const broken = source
    .replace(`import { ${kindConst} } from`, `import { ${kindConst}, ${childConst} } from`)
    .replace(`import type { ${p.kind}, `, `import type { ${p.kind}, ${p.childKind}, `)
    .replace(
      '  // TODO: compare spec',
      [
        "  if (!obj.metadata?.annotations?.['child']) {",
        `    const child = await client.resource<${p.childKind}>(${childConst}).create({ apiVersion: '${p.apiVersion}', kind: '${p.childKind}', metadata: { generateName: \`\${obj.metadata!.name}-\` }, spec: {} } as ${p.childKind});`,
        `    obj = await client.resource<${p.kind}>(${kindConst}, obj.metadata?.namespace).update({ ...obj, metadata: { ...obj.metadata, annotations: { child: child.metadata!.name! } } });`,
        '  }',
        '  // TODO: compare spec',
      ].join('\n'),
    );
  assert.notEqual(broken, source, 'the scaffolded controller has the lines the break is written against');
  fs.writeFileSync(file, broken);
  try {
    const bad = run('npm', ['run', 'explore'], { cwd: p.dir, env: p.env, timeoutMs: 240_000, allowFailure: true });
    assert.equal(bad.status, 1, `explore exits 1 on the broken controller:\n${bad.stdout}\n${bad.stderr}`);
    assert.match(bad.stdout, new RegExp(`crash at crash@\\d+: during step \\d+ \\(apply ${p.kind} [^)]*\\), right after #\\d+ create ${p.childKind.toLowerCase()}s \\S+`), bad.stdout);
    return { passed: passed.stdout, broken: bad.stdout };
  } finally {
    fs.writeFileSync(file, source);
  }
}
