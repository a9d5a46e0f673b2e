/**
 * `npm run bench:sample-controller [-- --foos=N --workers=W --runs=R --engines=node-http2,undici,node-http1
 * --node-flags="--max-semi-space-size=1 ..." --tracing]`: a fresh envtest; for each controller — ours
 * (`examples/sample-controller/dist/main.js`) once per HTTP engine (`KUBEGEN_HTTP_ENGINE`, default all three) and the
 * Go original unthrottled (`sample-controller-fast`, `SC_WORKERS` workers) — N Foos (default 1,000) are created in a
 * fresh namespace before the controller starts, then the bench measures seconds from spawning the controller until
 * every Foo has its Deployment (seen by a watch), the controller's CPU seconds (`/proc/<pid>/stat` utime + stime)
 * and peak RSS (`/proc/<pid>/status` VmHWM) at that moment, and the load average. After each run its namespace's
 * Foos and Deployments are deleted, so the Go controller (which watches every namespace) only sees its own. R rounds
 * (default 5), every controller once per round, the order alternating; medians. Ours runs as a scaffolded project
 * deploys it: bundled by `kubegen bundle` (dist/image/main.js, what the scaffold's image runs; built by this bench)
 * with the scaffold's `NODE_OPTIONS`, `MALLOC_ARENA_MAX` and ENTRYPOINT flags; `--node-flags="..."` runs tsc's
 * modules with Node's defaults plus those flags instead (`--node-flags=` for Node's defaults alone). By default the
 * default engine also runs in the same rounds as tsc's modules with the scaffold's settings, bundled with no flags
 * (runMain's memory policy alone), as tsc's modules with no flags and with Node's defaults (`--no-both-settings`:
 * not). Prints the controllers side
 * by side, the ratios and the goals (issues 4, 14 and 28), judged on the default engine.
 * `--tracing` (issue 41) adds the default engine with OpenTelemetry on — the SDK started by the controller's
 * `startTracing()` (`@kubegen/runtime/tracing/sdk`), every span sampled, exported as OTLP/HTTP protobuf to a receiver this bench runs — to the same rounds,
 * and prints tracing's on/off ratios, the spans received per name, and whether any were dropped (fewer `create
 * deployments` or `update foos/status` spans than traced runs x Foos).
 * The measurement is bench/support/sample-controller-compare.ts, shared with `bench:scale`.
 */
import { parseArgs } from 'node:util';
import { Envtest } from '@kubegen/runtime/internal/testing/envtest/envtest.js';
import { HTTP_ENGINES, resolveHttpEngine, type HttpEngine } from '@kubegen/runtime/internal/client/http-transport.js';
import { OtlpReceiver } from '../test/integration/support/otlp-receiver.js';
import { compareSampleControllers } from './support/sample-controller-compare.js';
import {
  envtestAssets,
  envtestBinary,
  nodeFlagSettings,
  bundleSampleController,
  requireSampleControllerBuilt,
  scaffoldNodeSettings,
  SAMPLE_CONTROLLER_CRD,
} from './support/sample-controller-run.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    allowNegative: true,
    options: {
      foos: { type: 'string', default: '1000' },
      workers: { type: 'string', default: '2' },
      runs: { type: 'string', default: '5' },
      // Issue 43: also the default engine with Node's own settings, in the same rounds (--no-both-settings: not).
      'both-settings': { type: 'boolean', default: true },
      engines: { type: 'string', default: HTTP_ENGINES.join(',') },
      'node-flags': { type: 'string' },
      tracing: { type: 'boolean', default: false },
    },
  });
  requireSampleControllerBuilt();
  const engines = values.engines.split(',').filter(Boolean).map((e) => resolveHttpEngine(e as HttpEngine));
  const assets = envtestAssets();
  const goBinary = envtestBinary('sample-controller-fast', assets);
  const receiver = values.tracing ? await OtlpReceiver.start() : undefined;
  const env = await Envtest.start({ assetsDir: assets, crdPaths: [SAMPLE_CONTROLLER_CRD], attachOutput: false });
  try {
    const flags = values['node-flags'];
    const scaffold = scaffoldNodeSettings();
    const node =
      flags === undefined
        ? { ...scaffold, main: await bundleSampleController(), label: `${scaffold.label}, bundled (kubegen bundle: dist/image/main.js, as the image runs it)` }
        : nodeFlagSettings(flags.split(' ').filter(Boolean));
    await compareSampleControllers(env, Number(values.foos), Number(values.workers), goBinary, {
      runs: Number(values.runs),
      engines,
      node,
      // No flags at all, as a bare `node dist/main.js` starts: runMain's memory policy adds its settings; and the same
      // with the policy off (Node's own defaults throughout).
      ...(values['both-settings'] && flags === undefined
        ? {
            alsoWith: [
              { ...scaffold, label: "tsc's modules, the scaffold's settings" },
              // The image's file started with no flags at all (a Helm chart of a user's own): runMain's policy only.
              { ...nodeFlagSettings([]), main: node.main, label: 'bundled, no flags (memory policy)' },
              { ...nodeFlagSettings([]), label: 'no flags (memory policy)' },
              { flags: [], env: { KUBEGEN_MEMORY_POLICY: 'off' }, label: "Node's defaults (policy off)" },
            ],
          }
        : {}),
      ...(receiver ? { tracing: { endpoint: receiver.endpoint } } : {}),
    });
    if (receiver) {
      // Every span the controllers made reaches the receiver (each process flushes on SIGTERM): compare the counts per
      // name with what the runs did (a reconcile and a create, an update and an event per Foo).
      const byName = new Map<string, number>();
      for (const s of receiver.spans) byName.set(s.name, (byName.get(s.name) ?? 0) + 1);
      const names = [...byName].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${name} ${count}`).join(', ');
      console.log(`tracing: ${receiver.spans.length} spans received (${receiver.contentTypes.length} exports): ${names}`);
      // Each traced run creates a Deployment and updates the status of every Foo at least once: fewer such spans
      // than runs x Foos were dropped (a full queue, or a last batch not flushed on SIGTERM).
      const expected = Number(values.runs) * Number(values.foos);
      const short = ['create deployments', 'update foos/status'].filter((name) => (byName.get(name) ?? 0) < expected);
      console.log(`tracing: spans dropped: ${short.length === 0 ? 'none' : short.map((name) => `${name} ${byName.get(name) ?? 0} < ${expected}`).join(', ')}`);
    }
  } finally {
    await env.stop();
    await receiver?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
