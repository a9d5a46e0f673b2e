/**
 * The command line `kubegen dev` starts the project's manager with: its kubeconfig, its ports on 127.0.0.1, the
 * webhook certificate, and then the user's own arguments (which come last, so a flag given twice takes the user's).
 */

/** What the manager's command line is made from. */
export interface ManagerArgsInput {
  /** The built manager, `dist/src/main.js`. */
  main: string;
  /** The built manager's source text: a main without a `webhook-host` flag (scaffolded before it had one) is not given it. */
  mainSource: string;
  kubeconfig: string;
  /** 0 turns the endpoint off. */
  metricsPort: number;
  healthPort: number;
  webhookPort: number;
  /** The local control plane calls the manager's webhooks, with a certificate from this folder. */
  webhookCertDir: string | undefined;
  /** Text logs (stderr is a terminal and the user chose no `--log-format`). */
  textLogs: boolean;
  /** Passed after the flags `kubegen dev` sets (`npm run dev -- -- <args>`). */
  userArgs: readonly string[];
}

/**
 * The manager's arguments. Every endpoint listens on 127.0.0.1 — the webhooks too (`--webhook-host=127.0.0.1`, which a
 * manager deployed in a cluster leaves unset to listen on every interface) — unless the user's arguments say
 * `--webhook-host` themselves.
 */
export function managerArgs(input: ManagerArgsInput): string[] {
  const bind = (port: number): string => (port === 0 ? '0' : `127.0.0.1:${port}`);
  const userSets = (flag: string): boolean => input.userArgs.some((a) => a === flag || a.startsWith(`${flag}=`));
  const loopbackWebhooks = /['"]webhook-host['"]/.test(input.mainSource) && !userSets('--webhook-host');
  return [
    input.main,
    `--kubeconfig=${input.kubeconfig}`,
    `--metrics-bind-address=${bind(input.metricsPort)}`,
    `--health-probe-bind-address=${bind(input.healthPort)}`,
    `--webhook-port=${input.webhookPort}`,
    ...(loopbackWebhooks ? ['--webhook-host=127.0.0.1'] : []),
    ...(input.webhookCertDir !== undefined ? [`--webhook-cert-dir=${input.webhookCertDir}`] : []),
    ...(input.textLogs ? ['--log-format=text'] : []),
    ...input.userArgs,
  ];
}
