/**
 * `StaticKubeconfigProvider`: a fixed list of member clusters, each a kubeconfig file and optionally a context in
 * it (multicluster-runtime's file provider, without the file watch). It engages every cluster when the manager
 * starts and disengages them when it stops. A cluster whose kubeconfig cannot be read or resolved is logged (naming
 * the cluster and the file) and left out; the others are engaged. `start` rejects only when no cluster at all could
 * be engaged and some were configured.
 */
import type { Cluster } from '../../cluster/cluster.js';
import { mergeKubeConfigs, readKubeConfigFile, resolveRestConfig } from '../../client/kubeconfig-file.js';
import { getLogger, type Logger } from '../../log.js';
import { ClusterNotEngagedError, type ClusterAware, type ClusterProvider } from '../provider.js';
import { newMemberCluster, type MemberCluster, type MemberClusterOptions } from './member-cluster.js';

/** One member cluster of a {@link StaticKubeconfigProvider}. */
export interface StaticCluster {
  /** The cluster's name in requests, logs and metrics. */
  name: string;
  /** Path of its kubeconfig file (several files: separated by the path delimiter, merged as `KUBECONFIG`). */
  kubeconfig: string;
  /** Context to use (default: the file's current context). */
  context?: string;
}

/** Settings of a {@link StaticKubeconfigProvider}. */
export interface StaticKubeconfigProviderOptions extends MemberClusterOptions {
  clusters: StaticCluster[];
  logger?: Logger;
}

/** A fixed list of kubeconfig files/contexts as member clusters (see the module comment). */
export class StaticKubeconfigProvider implements ClusterProvider {
  private readonly opts: StaticKubeconfigProviderOptions;
  private readonly log: Logger;
  private readonly engaged = new Map<string, MemberCluster>();

  constructor(opts: StaticKubeconfigProviderOptions) {
    const names = new Set<string>();
    for (const c of opts.clusters) {
      if (!c.name) throw new TypeError(`static cluster with kubeconfig ${c.kubeconfig} has no name`);
      if (names.has(c.name)) throw new TypeError(`static cluster ${JSON.stringify(c.name)} is listed twice`);
      names.add(c.name);
    }
    this.opts = opts;
    this.log = (opts.logger ?? getLogger()).child({ component: 'static-kubeconfig-provider' });
  }

  async start(aware: ClusterAware, signal: AbortSignal): Promise<void> {
    const runs: Promise<void>[] = [];
    const failures: string[] = [];
    for (const spec of this.opts.clusters) {
      let member: MemberCluster;
      try {
        const files = spec.kubeconfig.split(process.platform === 'win32' ? ';' : ':').filter((f) => f !== '');
        const config = resolveRestConfig(mergeKubeConfigs(files.map(readKubeConfigFile)), spec.context);
        member = newMemberCluster(spec.name, config, this.opts);
      } catch (err) {
        const message = `cluster ${JSON.stringify(spec.name)} (kubeconfig ${spec.kubeconfig}${spec.context ? `, context ${spec.context}` : ''}): ${err instanceof Error ? err.message : String(err)}`;
        failures.push(message);
        this.log.error('cannot engage cluster', { cluster: spec.name, kubeconfig: spec.kubeconfig, error: err });
        continue;
      }
      this.engaged.set(spec.name, member);
      runs.push(
        aware.engage(spec.name, member.cluster, signal).then(
          () => this.forget(spec.name, member),
          (err: unknown) => {
            this.forget(spec.name, member);
            this.log.error('engaging cluster failed', { cluster: spec.name, error: err });
          },
        ),
      );
    }
    if (runs.length === 0 && failures.length > 0) throw new Error(`no cluster could be engaged:\n  ${failures.join('\n  ')}`);
    await Promise.all(runs);
  }

  get(name: string): Cluster {
    const m = this.engaged.get(name);
    if (!m) throw new ClusterNotEngagedError(name);
    return m.cluster;
  }

  list(): string[] {
    return [...this.engaged.keys()].sort();
  }

  private forget(name: string, member: MemberCluster): void {
    if (this.engaged.get(name) === member) this.engaged.delete(name);
    member.close();
  }
}
