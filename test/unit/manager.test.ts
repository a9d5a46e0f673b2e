import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { builtinResources } from "@kubegen/runtime/internal/builtin/resources.js";
import { isNotFound } from "@kubegen/runtime/internal/client/errors.js";
import { ResourceClient } from "@kubegen/runtime/internal/client/resource-client.js";
import type { KubeObject } from "@kubegen/runtime/internal/client/types.js";
import { nullLogger } from "@kubegen/runtime/internal/log.js";
import { controllerFor } from "@kubegen/runtime/internal/builder/builder.js";
import { Manager } from "@kubegen/runtime/internal/manager/manager.js";
import { generationChanged } from "@kubegen/runtime/internal/predicate/predicate.js";
import { newFakeTransport } from "@kubegen/runtime/internal/testing/fake/fake-transport.js";
import { fooResource } from "../../test/golden/sample-controller/samplecontroller.k8s.io/v1alpha1/register.js";
import { settle } from '../support/wait.js';

const until = (cond: () => boolean, what: string): Promise<void> => settle(cond, what, 500);

const foo = (name: string, generation = 1): KubeObject =>
  ({
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: "ns", generation },
    spec: { deploymentName: name, replicas: 1 },
  }) as KubeObject;

const deploymentOwnedBy = (
  name: string,
  owner: string,
  uid = "u-" + owner,
): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name,
    namespace: "ns",
    ownerReferences: [
      {
        apiVersion: "samplecontroller.k8s.io/v1alpha1",
        kind: "Foo",
        name: owner,
        uid,
        controller: true,
      },
    ],
  },
});

test("manager + builder: For/Owns wiring, predicates, cache-backed client, graceful stop", async () => {
  const transport = newFakeTransport(
    [fooResource, builtinResources.deployments],
    foo("a"),
    deploymentOwnedBy("d-b", "b"),
  );
  const mgr = new Manager({
    transport,
    metricsBindAddress: "0",
    logger: nullLogger,
    registry: new Registry(),
  });
  const seen: string[] = [];
  const ctrl = controllerFor(mgr, fooResource, {
    predicates: [generationChanged()],
  })
    .owns(builtinResources.deployments)
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(async (req) => {
      seen.push(`${req.namespace}/${req.name}`);
    });
  assert.equal(ctrl.name, "foo");
  assert.equal(ctrl.maxConcurrentReconciles, 2);
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  try {
    await until(
      () => seen.includes("ns/a") && seen.includes("ns/b"),
      "initial reconciles",
    );
    assert.equal(mgr.ready, true);

    // Cache-backed reads, API writes.
    const client = mgr.getClient().resource<KubeObject>(fooResource, "ns");
    const cached = await client.get("a");
    assert.equal(cached.metadata?.name, "a");
    (cached.metadata as { labels?: Record<string, string> }).labels = {
      mutated: "yes",
    };
    assert.equal(
      (await client.get("a")).metadata?.labels,
      undefined,
      "get returns copies",
    );
    await assert.rejects(client.get("missing"), (e) => isNotFound(e));
    assert.deepEqual(
      (await client.list()).items.map((o) => o.metadata?.name),
      ["a"],
    );

    // A new Deployment owned by Foo "c" enqueues "c".
    await new ResourceClient<KubeObject>(
      transport,
      builtinResources.deployments,
      "ns",
    ).create(deploymentOwnedBy("d-c", "c"));
    await until(() => seen.includes("ns/c"), "owner reconcile");

    // A status-only update (same generation) of Foo "a" is filtered; a spec change is not.
    const before = seen.filter((k) => k === "ns/a").length;
    const fooClient = new ResourceClient<KubeObject>(
      transport,
      fooResource,
      "ns",
    );
    const cur = await fooClient.get("a");
    await fooClient.update({
      ...cur,
      metadata: { ...cur.metadata, labels: { x: "1" } },
    });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(
      seen.filter((k) => k === "ns/a").length,
      before,
      "generation unchanged: filtered",
    );
    const cur2 = await fooClient.get("a");
    await fooClient.update({
      ...cur2,
      metadata: { ...cur2.metadata, generation: 2 },
      spec: { deploymentName: "a", replicas: 3 },
    } as KubeObject);
    const cur3 = await fooClient.get("a");
    assert.notEqual(
      cur3.metadata?.generation,
      cur.metadata?.generation,
      "fake bumps generation on spec change",
    );
    await until(
      () => seen.filter((k) => k === "ns/a").length === before + 1,
      "spec-change reconcile",
    );
  } finally {
    stop.abort();
    await run;
  }
  assert.equal(ctrl.queue.shuttingDown(), true);
});

test("manager graceful shutdown waits for in-flight reconciles, but not past the timeout", async () => {
  const transport = newFakeTransport([fooResource], foo("slow"));
  const mgr = new Manager({
    transport,
    metricsBindAddress: "0",
    logger: nullLogger,
    registry: new Registry(),
    gracefulShutdownTimeoutMs: 50,
  });
  let started = false;
  let aborted = false;
  controllerFor(mgr, fooResource).complete(
    (_req, ctx) =>
      new Promise<void>(() => {
        started = true;
        ctx.signal.addEventListener("abort", () => (aborted = true));
      }),
  );
  const stop = new AbortController();
  const run = mgr.start(stop.signal);
  await until(() => started, "reconcile started");
  stop.abort();
  await run; // resolves despite the reconcile never settling
  assert.equal(aborted, true, "in-flight reconcile saw its signal abort");
});

test("manager.start() without a signal runs until stop(); stop() before start makes start return at once", async () => {
  const transport = newFakeTransport([fooResource], foo("a"));
  const mgr = new Manager({ transport, metricsBindAddress: "0", logger: nullLogger, registry: new Registry() });
  let reconciled = 0;
  controllerFor(mgr, fooResource).complete(() => {
    reconciled++;
  });
  let settled = false;
  const run = mgr.start().finally(() => (settled = true));
  await until(() => reconciled === 1 && mgr.ready, "reconciled and ready");
  assert.equal(settled, false, "runs without a signal");
  await mgr.stop();
  assert.equal(settled, true, "stop() resolves after start() has settled");
  await run;
  assert.equal(mgr.ready, false);
  await assert.rejects(mgr.start(), /already started/);

  const early = new Manager({ transport, metricsBindAddress: "0", logger: nullLogger, registry: new Registry() });
  await early.stop();
  await early.start(); // returns without running anything
  assert.equal(early.metricsAddress, undefined);
});
