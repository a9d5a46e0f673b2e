/**
 * `codegen create webhook`: admission webhooks for a kind made by `create api` (kubebuilder's `create webhook`).
 *
 * Writes `src/webhooks/<kind>-webhook.ts` — the `+kubebuilder:webhook` markers, a defaulter (`--defaulting`) and/or a
 * validator (`--programmatic-validation`) and `setup<Kind>Webhook(server)` — with its unit test and an envtest test
 * that runs the webhooks behind a real apiserver; registers it in `src/main.ts` at `// +kubegen:scaffold:webhooks`.
 * The first webhook of a project also adds the deployment side, as kubebuilder lays it out: `config/webhook`
 * (Service, kustomizations; `npm run generate` writes `manifests.yaml`), `config/certmanager` (self-signed Issuer,
 * Certificate) and, in `config/default`, the manager patch (port 9443, the certificate Secret mounted) and the
 * replacements that make cert-manager inject the CA into the webhook configurations.
 *
 * All checks run before anything is written; existing files are never overwritten.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ScaffoldError } from './errors.js';
import { assertNoneExist, exists, writeNewFiles } from './files.js';
import type { ScaffoldFile } from './files.js';
import type { ScaffoldResult } from './init.js';
import { apiNames } from './names.js';
import type { ApiNames } from './names.js';
import { IMPORTS_MARKER, insertAbove, MAIN_FILE } from './main-markers.js';
import { readProjectFile } from './project-file.js';
import { renderTemplate } from './render.js';
import { findProjectRoot } from './create-api.js';

export interface CreateWebhookOptions {
  cwd: string;
  group: string;
  version: string;
  kind: string;
  /** A mutating webhook with a defaulter. */
  defaulting?: boolean;
  /** A validating webhook with a validator. */
  programmaticValidation?: boolean;
}

export const WEBHOOKS_MARKER = '// +kubegen:scaffold:webhooks';
const DEFAULT_KUSTOMIZATION = 'config/default/kustomization.yaml';
const RESOURCES_MARKER = '# +kubegen:scaffold:webhook-resources';
const WIRING_MARKER = '# +kubegen:scaffold:webhook-wiring';

/** `/mutate-<group with dashes>-<version>-<kind>`, kubebuilder's path scheme. */
function webhookPath(kind: 'mutate' | 'validate', n: ApiNames): string {
  return `/${kind}-${n.fullGroup.replace(/\./g, '-')}-${n.version}-${n.fileBase}`;
}

export async function createWebhook(opts: CreateWebhookOptions): Promise<ScaffoldResult> {
  if (!opts.defaulting && !opts.programmaticValidation) {
    throw new ScaffoldError('nothing to scaffold: pass --defaulting and/or --programmatic-validation');
  }
  const root = await findProjectRoot(opts.cwd);
  const project = await readProjectFile(root);
  const n = apiNames(opts.group, project.domain, opts.version, opts.kind);
  const resource = project.resources.find((r) => r.group === n.group && r.version === n.version && r.kind === n.kind);
  if (!resource) throw new ScaffoldError(`kind ${n.kind} does not exist in ${n.fullGroup}/${n.version}: run "kubegen create api" first`);
  const names = apiNames(opts.group, project.domain, opts.version, opts.kind, resource.plural);

  const files: ScaffoldFile[] = [
    { path: `src/webhooks/${n.fileBase}-webhook.ts`, content: webhookFile(names, opts) },
    { path: `src/webhooks/${n.fileBase}-webhook.test.ts`, content: unitTestFile(names, opts) },
    { path: `test/envtest/${n.fileBase}-webhook.test.ts`, content: envtestFile(names, opts, resource.namespaced) },
  ];
  const firstWebhook = !(await exists(path.join(root, 'config', 'webhook')));
  if (firstWebhook) files.push(...deploymentFiles(project.projectName));
  await assertNoneExist(root, files);

  const mainPath = path.join(root, MAIN_FILE);
  if (!(await exists(mainPath))) throw new ScaffoldError(`${mainPath} not found; cannot register the webhook`);
  let main = await fs.readFile(mainPath, 'utf8');
  const setup = `setup${n.kind}Webhook`;
  if (new RegExp(`\\b${setup}\\b`).test(main)) throw new ScaffoldError(`${MAIN_FILE} already calls ${setup}`);
  main = insertAbove(main, IMPORTS_MARKER, `import { ${setup} } from './webhooks/${n.fileBase}-webhook.js';`, MAIN_FILE);
  main = insertAbove(main, WEBHOOKS_MARKER, `${setup}(webhookServer);`, MAIN_FILE, 'webhook');
  let kustomization: string | undefined;
  if (firstWebhook) {
    const file = path.join(root, DEFAULT_KUSTOMIZATION);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      throw new ScaffoldError(`${file} not found; cannot wire the webhook into config/default`);
    }
    text = insertAbove(text, RESOURCES_MARKER, '- ../webhook', DEFAULT_KUSTOMIZATION, 'webhook');
    text = insertAbove(text, RESOURCES_MARKER, '- ../certmanager', DEFAULT_KUSTOMIZATION, 'webhook');
    kustomization = insertAbove(text, WIRING_MARKER, renderTemplate('webhook/default-wiring.yaml.tmpl').trimEnd(), DEFAULT_KUSTOMIZATION, 'webhook');
  }

  const config = await markerSourcesEdit(root);

  await writeNewFiles(root, files);
  await fs.writeFile(mainPath, main);
  const edited = [MAIN_FILE];
  if (config !== undefined) {
    await fs.writeFile(path.join(root, CONFIG_FILE), config);
    edited.push(CONFIG_FILE);
  }
  if (kustomization !== undefined) {
    await fs.writeFile(path.join(root, DEFAULT_KUSTOMIZATION), kustomization);
    edited.push(DEFAULT_KUSTOMIZATION);
  }
  return { root, written: files.map((f) => f.path), edited };
}

const CONFIG_FILE = 'codegen.config.yaml';

/**
 * `codegen.config.yaml` with `src/webhooks` added to `rbacSources` (the folders scanned for `+kubebuilder:rbac` and
 * `+kubebuilder:webhook` markers), or undefined when a listed folder already covers it. Only the flow-list form
 * `init` writes (`rbacSources: [a, b]`) is edited; anything else is a {@link ScaffoldError} saying what to add.
 */
async function markerSourcesEdit(root: string): Promise<string | undefined> {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new ScaffoldError(`${file} not found; it must list src/webhooks in rbacSources for the webhook markers to be read`);
  }
  const m = /^(rbacSources:\s*\[)([^\]\n]*)\]/m.exec(text);
  if (!m) throw new ScaffoldError(`${file}: add src/webhooks to rbacSources (the folders scanned for +kubebuilder:webhook markers)`);
  const listed = m[2]!.split(',').map((x) => x.trim().replace(/^["']|["']$/g, '').replace(/\/+$/, '')).filter(Boolean);
  if (listed.some((d) => d === 'src' || d === '.' || d === 'src/webhooks')) return undefined;
  return text.replace(m[0], `${m[1]}${[...listed, 'src/webhooks'].join(', ')}]`);
}

function deploymentFiles(projectName: string): ScaffoldFile[] {
  const p = { projectName };
  return [
    { path: 'config/webhook/kustomization.yaml', content: renderTemplate('webhook/kustomization-webhook.yaml.tmpl') },
    { path: 'config/webhook/kustomizeconfig.yaml', content: renderTemplate('webhook/kustomizeconfig-webhook.yaml.tmpl') },
    { path: 'config/webhook/service.yaml', content: renderTemplate('webhook/service.yaml.tmpl', p) },
    { path: 'config/certmanager/kustomization.yaml', content: renderTemplate('webhook/kustomization-certmanager.yaml.tmpl') },
    { path: 'config/certmanager/kustomizeconfig.yaml', content: renderTemplate('webhook/kustomizeconfig-certmanager.yaml.tmpl') },
    { path: 'config/certmanager/issuer.yaml', content: renderTemplate('webhook/certmanager-issuer.yaml.tmpl', p) },
    { path: 'config/certmanager/certificate.yaml', content: renderTemplate('webhook/certmanager-certificate.yaml.tmpl', p) },
    { path: 'config/default/manager_webhook_patch.yaml', content: renderTemplate('webhook/manager-webhook-patch.yaml.tmpl') },
  ];
}

function marker(kind: 'mutate' | 'validate', n: ApiNames): string {
  const mutating = kind === 'mutate';
  const verbs = 'create;update';
  const name = `${mutating ? 'm' : 'v'}${n.fileBase}-${n.version}.${n.fullGroup}`;
  return `// +kubebuilder:webhook:path=${webhookPath(kind, n)},mutating=${mutating},failurePolicy=fail,sideEffects=None,groups=${n.fullGroup},resources=${n.plural},verbs=${verbs},versions=${n.version},name=${name},admissionReviewVersions=v1`;
}

function varName(n: ApiNames): string {
  return n.kind[0]!.toLowerCase() + n.kind.slice(1);
}

function webhookFile(n: ApiNames, o: CreateWebhookOptions): string {
  const values = { kind: n.kind, varName: varName(n) };
  const runtime = [...(o.defaulting ? ['defaultingWebhook'] : []), ...(o.programmaticValidation ? ['validatingWebhook'] : [])];
  const types = [...(o.defaulting ? ['Defaulter'] : []), ...(o.programmaticValidation ? ['Validator'] : []), 'WebhookServer'];
  return renderTemplate('webhook/webhook.ts.tmpl', {
    imports: `import { ${runtime.join(', ')} } from '@kubegen/runtime';\nimport type { ${types.join(', ')} } from '@kubegen/runtime';`,
    kind: n.kind,
    fullGroup: n.fullGroup,
    version: n.version,
    markers: [...(o.defaulting ? [marker('mutate', n)] : []), ...(o.programmaticValidation ? [marker('validate', n)] : [])].join('\n'),
    handlers: [
      ...(o.defaulting ? [renderTemplate('webhook/defaulter.ts.tmpl', values)] : []),
      ...(o.programmaticValidation ? [renderTemplate('webhook/validator.ts.tmpl', values)] : []),
    ].join(''),
    registrations: [
      ...(o.defaulting ? [`  server.register('${webhookPath('mutate', n)}', defaultingWebhook(${varName(n)}Defaulter));\n`] : []),
      ...(o.programmaticValidation ? [`  server.register('${webhookPath('validate', n)}', validatingWebhook(${varName(n)}Validator));\n`] : []),
    ].join(''),
  });
}

function unitTestFile(n: ApiNames, o: CreateWebhookOptions): string {
  const v = varName(n);
  const imports = [...(o.defaulting ? [`${v}Defaulter`] : []), ...(o.programmaticValidation ? [`${v}Validator`] : [])];
  const req = `{ operation: 'CREATE' } as never`;
  let tests = '';
  if (o.defaulting) {
    tests += `\ntest('the defaulter fills in spec.foo and keeps a value that is set', async () => {\n`;
    tests += `  const obj = sample({});\n  await ${v}Defaulter(obj, ${req});\n  assert.equal(obj.spec?.foo, 'default');\n`;
    tests += `  const set = sample({ foo: 'mine' });\n  await ${v}Defaulter(set, ${req});\n  assert.equal(set.spec?.foo, 'mine');\n});\n`;
  }
  if (o.programmaticValidation) {
    tests += `\ntest('the validator refuses spec.foo "invalid" on create and update, and allows deletes', async () => {\n`;
    tests += `  await ${v}Validator.validateCreate!(sample({ foo: 'fine' }), ${req});\n`;
    tests += `  await assert.rejects(async () => ${v}Validator.validateCreate!(sample({ foo: 'invalid' }), ${req}), /spec\\.foo must not be "invalid"/);\n`;
    tests += `  await assert.rejects(async () => ${v}Validator.validateUpdate!(sample({}), sample({ foo: 'invalid' }), ${req}), /must not be/);\n`;
    tests += `  await ${v}Validator.validateDelete!(sample({ foo: 'invalid' }), ${req});\n});\n`;
  }
  return renderTemplate('webhook/webhook.test.ts.tmpl', {
    kind: n.kind,
    fullGroup: n.fullGroup,
    version: n.version,
    fileBase: n.fileBase,
    testImports: `import { ${imports.join(', ')} } from './${n.fileBase}-webhook.js';`,
    tests,
  });
}

function envtestFile(n: ApiNames, o: CreateWebhookOptions, namespaced: boolean): string {
  const access = `${n.groupVersionMember}.${n.pluralMember}(${namespaced ? 'namespace' : ''})`;
  let checks = '';
  if (o.defaulting) {
    checks += `    const created = await client.create(sample);\n    assert.equal(created.spec?.foo, 'default', 'defaulted by the mutating webhook');\n    await client.delete(created.metadata!.name!);\n`;
  }
  if (o.programmaticValidation) {
    checks += `    await assert.rejects(client.create({ ...sample, spec: { foo: 'invalid' } }), /denied the request: spec\\.foo must not be "invalid"/);\n`;
  }
  return renderTemplate('webhook/webhook.envtest.ts.tmpl', {
    kind: n.kind,
    fullGroup: n.fullGroup,
    version: n.version,
    fileBase: n.fileBase,
    clientAccess: access,
    firstPath: webhookPath(o.defaulting ? 'mutate' : 'validate', n),
    testNamespaceImports: namespaced ? 'createTestNamespace, deleteTestNamespace, ' : '',
    namespaceSetup: namespaced ? `  const namespace = await createTestNamespace(transport, '${n.fileBase}-webhook');\n` : '',
    namespaceTeardown: namespaced ? '    await deleteTestNamespace(transport, namespace);\n' : '',
    envtestChecks: checks,
  });
}
