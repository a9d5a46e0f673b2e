/**
 * `KubeconfigSecretProvider` (multicluster-runtime's kubeconfig provider): member clusters are Secrets in one hub
 * namespace, labelled `multicluster.kubegen.io/kubeconfig=true`, with the kubeconfig under the key `kubeconfig`; the
 * cluster is named after the Secret. A Secret added engages its cluster; changed (a different kubeconfig) disengages
 * the old cluster and engages a new one; removed (or unlabelled) disengages it.
 *
 * A Secret whose kubeconfig is missing, malformed or uses an unsupported user (`exec`, `auth-provider`) is logged,
 * naming the Secret and the key, and skipped; if its cluster was engaged under an earlier, valid kubeconfig, that
 * engagement stays until the Secret is fixed or removed. The Secrets are watched with an informer of the hub, which
 * retries with backoff when it may not list them (the error names the verb, the kind and the identity).
 */
import { createHash } from 'node:crypto';
import { SharedInformerFactory } from '../../cache/factory.js';
import { objectFromDeleted } from '../../cache/keys.js';
import type { Secret } from '../../builtin/types.js';
import { builtinResources } from '../../builtin/resources.js';
import type { Cluster } from '../../cluster/cluster.js';
import { describeExecPlugin } from '../../client/exec-config.js';
import { parseKubeConfig, resolveRestConfig } from '../../client/kubeconfig-file.js';
import type { Transport } from '../../client/types.js';
import type { Clock } from '../../clock.js';
import { getLogger, type Logger } from '../../log.js';
import { ClusterNotEngagedError, type ClusterAware, type ClusterProvider } from '../provider.js';
import { newMemberCluster, type MemberCluster, type MemberClusterOptions } from './member-cluster.js';

/** The label that marks a kubeconfig Secret (value `true`). */
export const KUBECONFIG_SECRET_LABEL = 'multicluster.kubegen.io/kubeconfig';
/** The Secret's data key that holds the kubeconfig. */
export const KUBECONFIG_SECRET_KEY = 'kubeconfig';

/** Settings of a {@link KubeconfigSecretProvider}. */
export interface KubeconfigSecretProviderOptions extends MemberClusterOptions {
  /** The hub's transport (where the Secrets are). */
  transport: Transport;
  /** The hub namespace of the Secrets. */
  namespace: string;
  /** Which Secrets (default `multicluster.kubegen.io/kubeconfig=true`). */
  labelSelector?: string;
  /** The data key of the kubeconfig (default `kubeconfig`). */
  key?: string;
  clock?: Clock;
  logger?: Logger;
}

interface Engaged {
  /** SHA-256 of the kubeconfig it was made from. */
  digest: string;
  member: MemberCluster;
  stop: AbortController;
  done: Promise<void>;
}

/** Member clusters from kubeconfig Secrets in a hub namespace (see the module comment). */
export class KubeconfigSecretProvider implements ClusterProvider {
  private readonly opts: KubeconfigSecretProviderOptions;
  private readonly log: Logger;
  private readonly key: string;
  private readonly engaged = new Map<string, Engaged>();
  private aware: ClusterAware | undefined;
  private stopped = false;

  constructor(opts: KubeconfigSecretProviderOptions) {
    if (!opts.namespace) throw new TypeError('KubeconfigSecretProvider needs the namespace of its Secrets');
    this.opts = opts;
    this.key = opts.key ?? KUBECONFIG_SECRET_KEY;
    this.log = (opts.logger ?? getLogger()).child({ component: 'kubeconfig-secret-provider', namespace: opts.namespace });
  }

  async start(aware: ClusterAware, signal: AbortSignal): Promise<void> {
    if (this.aware) throw new Error('KubeconfigSecretProvider already started');
    this.aware = aware;
    const factory = new SharedInformerFactory(this.opts.transport, {
      namespace: this.opts.namespace,
      ...(this.opts.clock ? { clock: this.opts.clock } : {}),
      logger: this.log,
    });
    const informer = factory.informerFor<Secret>(builtinResources.secrets, { labelSelector: this.opts.labelSelector ?? `${KUBECONFIG_SECRET_LABEL}=true` });
    informer.addEventHandler({
      onAdd: (s) => this.upsert(s),
      onUpdate: (_o, s) => this.upsert(s),
      onDelete: (s) => {
        const name = objectFromDeleted(s).metadata?.name;
        if (name) this.remove(name, 'its Secret was deleted');
      },
    });
    factory.start();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.stopped = true;
    await factory.shutdown();
    const left = [...this.engaged.values()];
    for (const e of left) e.stop.abort();
    await Promise.all(left.map((e) => e.done));
  }

  get(name: string): Cluster {
    const e = this.engaged.get(name);
    if (!e) throw new ClusterNotEngagedError(name);
    return e.member.cluster;
  }

  list(): string[] {
    return [...this.engaged.keys()].sort();
  }

  /** A Secret added or changed: (re-)engage its cluster when its kubeconfig is new and valid. */
  private upsert(secret: Secret): void {
    if (this.stopped) return;
    const name = secret.metadata?.name;
    if (!name) return;
    const where = `Secret ${this.opts.namespace}/${name} key ${JSON.stringify(this.key)}`;
    const data = secret.data?.[this.key];
    if (typeof data !== 'string' || data === '') {
      this.log.error('kubeconfig Secret has no kubeconfig; cluster not engaged', { secret: name, key: this.key, engaged: this.engaged.has(name) });
      return;
    }
    const text = Buffer.from(data, 'base64').toString('utf8');
    const digest = createHash('sha256').update(text).digest('hex');
    const current = this.engaged.get(name);
    if (current?.digest === digest) return;
    let member: MemberCluster;
    try {
      const config = resolveRestConfig(parseKubeConfig(text, '/', where));
      // A Secret's author must not get to run a command in the controller's container.
      if (config.exec) throw new Error(`${describeExecPlugin(config.exec)}: exec credential plugins are not run for kubeconfigs from Secrets`);
      member = newMemberCluster(name, config, this.opts);
    } catch (err) {
      this.log.error('invalid kubeconfig in Secret; cluster not engaged', { secret: name, key: this.key, error: err instanceof Error ? `${where}: ${err.message}` : err, keptEarlier: current !== undefined });
      return;
    }
    if (current) {
      this.log.info('kubeconfig Secret changed; engaging the cluster anew', { cluster: name });
      current.stop.abort();
    }
    const stop = new AbortController();
    const entry: Engaged = { digest, member, stop, done: Promise.resolve() };
    entry.done = (async () => {
      await current?.done;
      try {
        if (!stop.signal.aborted) await this.aware!.engage(name, member.cluster, stop.signal);
      } catch (err) {
        this.log.error('engaging cluster failed', { cluster: name, error: err });
      } finally {
        if (this.engaged.get(name) === entry) this.engaged.delete(name);
        member.close();
      }
    })();
    this.engaged.set(name, entry);
  }

  private remove(name: string, why: string): void {
    const e = this.engaged.get(name);
    if (!e) return;
    this.log.info(`disengaging cluster: ${why}`, { cluster: name });
    e.stop.abort();
  }
}
