/**
 * Two field managers server-side applying one apps/v1 Deployment, step by step, through the typed client: `ma` owns
 * container `a`, `mb` container `b` and an env entry and a port of `a`; `mb` then conflicts on `a`'s image and on the
 * (atomic) selector, drops its container, and `ma` drops its env entry. The unit test runs it on the fake tracker
 * (test/unit/fake-apply-builtin.test.ts); the integration test runs it on kube-apiserver and compares
 * (test/integration/apply-builtin.test.ts): the fake must answer as the apiserver does.
 */
import type { DeploymentApply, DeploymentInterface } from '@kubegen/runtime/internal/api/apps/v1/index.js';
import type { ContainerApply } from '@kubegen/runtime/internal/api/core/v1/index.js';
import type { ListMapEntry } from '@kubegen/runtime/internal/client/apply.js';
import { isApplyConflict } from '@kubegen/runtime/internal/client/errors.js';
import type { ApplyConflict } from '@kubegen/runtime/internal/client/errors.js';

/** What a container of the outcome keeps: the fields the scenario sets (the apiserver adds defaults besides). */
export interface ContainerOutcome {
  name: string;
  image?: string;
  env?: unknown[];
  ports?: unknown[];
}

/** A step's outcome in comparable form: the containers, the selector and each manager's fields, or the conflict. */
export type StepOutcome =
  | { containers: ContainerOutcome[]; selector: unknown; fields: Record<string, unknown> }
  | { conflict: { message: string; conflicts: readonly ApplyConflict[] } };

const LABELS = { app: 'web' };

function deployment(name: string, containers: ListMapEntry<ContainerApply, 'name'>[], selector?: Record<string, string>): DeploymentApply {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      ...(selector ? { selector: { matchLabels: selector }, template: { metadata: { labels: LABELS }, spec: { containers } } } : { template: { spec: { containers } } }),
    },
  };
}

const containerB: ListMapEntry<ContainerApply, 'name'> = { name: 'b', image: 'b:1', ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 53 }] };

/** The scenario's steps: label, manager, configuration. */
export function steps(name: string): [label: string, manager: string, config: DeploymentApply][] {
  return [
    ['ma applies container a', 'ma', deployment(name, [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] }], LABELS)],
    ['mb applies container b', 'mb', deployment(name, [containerB])],
    ['mb adds an env entry to a', 'mb', deployment(name, [containerB, { name: 'a', env: [{ name: 'Y', value: '2' }] }])],
    ["mb sets a's image", 'mb', deployment(name, [containerB, { name: 'a', image: 'a:2', env: [{ name: 'Y', value: '2' }] }])],
    ["mb applies a's port 80 with protocol TCP", 'mb', deployment(name, [containerB, { name: 'a', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }])],
    ['mb sets another selector', 'mb', deployment(name, [containerB, { name: 'a', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }], { app: 'web', tier: 'x' })],
    ['mb drops container b', 'mb', deployment(name, [{ name: 'a', env: [{ name: 'Y', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }])],
    ['ma drops env X', 'ma', deployment(name, [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80 }] }], LABELS)],
  ];
}

/** Runs the scenario on `deployments`; each step's outcome under its label. */
export async function runDeploymentApply(deployments: DeploymentInterface, name: string): Promise<Map<string, StepOutcome>> {
  const out = new Map<string, StepOutcome>();
  for (const [label, manager, config] of steps(name)) {
    try {
      const d = await deployments.apply(config, { fieldManager: manager });
      const fields: Record<string, unknown> = {};
      for (const e of d.metadata?.managedFields ?? []) fields[e.manager ?? ''] = e.fieldsV1;
      const containers = (d.spec?.template?.spec?.containers ?? []).map((c) => ({
        name: c.name,
        ...(c.image !== undefined ? { image: c.image } : {}),
        ...(c.env !== undefined ? { env: c.env } : {}),
        ...(c.ports !== undefined ? { ports: c.ports } : {}),
      }));
      out.set(label, { containers, selector: d.spec?.selector, fields });
    } catch (err) {
      if (!isApplyConflict(err)) throw err;
      out.set(label, { conflict: { message: err.message, conflicts: err.conflicts } });
    }
  }
  return out;
}
