/** The flags, and the resource filter they make: which discovered resources the janitor handles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIResourceInfo } from '@kubegen/runtime/discovery';
import { parseOptions } from './options.js';
import { admitted, parseResourceNames, selectResources, type ResourceFilter } from './resources.js';

const res = (group: string, version: string, resource: string, kind: string, extra: Partial<APIResourceInfo> = {}): APIResourceInfo => ({
  group, version, resource, kind, singular: kind.toLowerCase(), namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: [], categories: [], subresources: [], ...extra,
});
const DEPLOYMENTS = res('apps', 'v1', 'deployments', 'Deployment', { shortNames: ['deploy'] });
const CONFIGMAPS = res('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] });
const EVENTS = res('', 'v1', 'events', 'Event');
const NEW_EVENTS = res('events.k8s.io', 'v1', 'events', 'Event');
const WIDGETS_V1 = res('example.com', 'v1', 'widgets', 'Widget');
const WIDGETS_V2 = res('example.com', 'v2', 'widgets', 'Widget');
const BINDINGS = res('', 'v1', 'bindings', 'Binding', { verbs: ['create'] });
const COMPONENT_STATUSES = res('', 'v1', 'componentstatuses', 'ComponentStatus', { verbs: ['get', 'list'] });

describe('options', () => {
  it('has defaults that suit a whole cluster', () => {
    const o = parseOptions([]);
    assert.equal(o.dryRun, false);
    assert.deepEqual(o.namespaces, []);
    assert.deepEqual(o.excludedNamespaces, ['kube-system']);
    assert.deepEqual(o.filter, { include: [], exclude: [{ name: 'events', group: undefined }, { name: 'controllerrevisions', group: undefined }] });
    assert.equal(o.workers, 2);
    assert.equal(o.discoveryIntervalMs, 60_000);
    assert.equal(o.metricsBindAddress, '0');
  });

  it('takes lists comma-separated or repeated, and an empty value clears a default', () => {
    const o = parseOptions(['--namespace=a,b', '--namespace', 'c', '--include-resources=Deployment.apps,cm', '--exclude-resources=', '--exclude-namespaces=', '--dry-run', '--discovery-interval=30s', '--log-level=debug']);
    assert.deepEqual(o.namespaces, ['a', 'b', 'c']);
    assert.deepEqual(o.excludedNamespaces, []);
    assert.deepEqual(o.filter, { include: [{ name: 'deployment', group: 'apps' }, { name: 'cm', group: undefined }], exclude: [] });
    assert.equal(o.dryRun, true);
    assert.equal(o.discoveryIntervalMs, 30_000);
    assert.equal(o.logging['log-level'], 'debug');
    assert.equal(parseOptions(['--dry-run=false']).dryRun, false);
  });

  it('refuses bad values, naming the flag', () => {
    assert.throws(() => parseOptions(['--workers=0']), /--workers must be a positive integer, got 0/);
    assert.throws(() => parseOptions(['--discovery-interval=soon']), /--discovery-interval must be a duration/);
    assert.throws(() => parseOptions(['--include-resources=deploy ments']), /--include-resources: "deploy ments" is not a resource name/);
    assert.throws(() => parseOptions(['--namespace=Bad_NS']), /"Bad_NS" is not a namespace name/);
    assert.throws(() => parseOptions(['--dryrun']), /Unknown option '--dryrun'[\s\S]*usage:/);
  });
});

describe('the resource filter', () => {
  const filter = (include: string[], exclude: string[] = []): ResourceFilter => ({
    include: parseResourceNames('--include-resources', include),
    exclude: parseResourceNames('--exclude-resources', exclude),
  });

  it('names resources as kubectl does: plural, singular, kind, short name, with or without the group', () => {
    for (const name of ['deployments', 'deployment', 'Deployment', 'deploy', 'deployments.apps', 'DEPLOY.apps']) {
      assert.ok(admitted(filter([name]), DEPLOYMENTS), name);
    }
    assert.ok(!admitted(filter(['deployments.extensions']), DEPLOYMENTS));
    assert.ok(admitted(filter(['configmaps.core']), CONFIGMAPS));
    assert.ok(!admitted(filter(['events.core']), NEW_EVENTS));
    assert.ok(admitted(filter([], ['events.core']), NEW_EVENTS), 'excluding the core events keeps events.k8s.io');
    assert.ok(!admitted(filter([], ['events']), NEW_EVENTS), 'a name without a group is every group');
    assert.ok(!admitted(filter(['deployments'], ['deploy']), DEPLOYMENTS), 'exclude wins');
  });

  it('selects list+watch+delete resources once each, in the version the mapper prefers', async () => {
    const asked: string[][] = [];
    const chosen = await selectResources(
      [CONFIGMAPS, EVENTS, BINDINGS, COMPONENT_STATUSES, DEPLOYMENTS, WIDGETS_V1, WIDGETS_V2, NEW_EVENTS],
      filter([], ['events']),
      async (versions) => {
        asked.push(versions.map((v) => v.version));
        return versions.find((v) => v.version === 'v2')!;
      },
    );
    assert.deepEqual(chosen.map((r) => `${r.resource}.${r.group}/${r.version}`), ['configmaps./v1', 'deployments.apps/v1', 'widgets.example.com/v2']);
    assert.deepEqual(asked, [['v1', 'v2']], 'only resources served in several versions are looked up');
  });
});
