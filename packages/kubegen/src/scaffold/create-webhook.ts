/**
 * `kubegen create webhook`: admission webhooks for a kind made by `create api` (kubebuilder's `create webhook`).
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
import { didYouMean } from '../model/closest-name.js';
import { ScaffoldError } from './errors.js';
import { assertNoneExist, exists, writeNewFiles } from './files.js';
import type { ScaffoldFile } from './files.js';
import type { ScaffoldResult } from './init.js';
import { apiNames } from './names.js';
import type { ApiNames } from './names.js';
import { IMPORTS_MARKER, insertAbove, MAIN_FILE } from './main-markers.js';
import { sampleFile } from './sample-refresh.js';
import { readProjectFile } from './project-file.js';
import type { ProjectFile } from './project-file.js';
import { renderTemplate } from './render.js';
import { apisFolder, findProjectRoot } from './create-api.js';

export interface CreateWebhookOptions {
  cwd: string;
  group: string;
  version: string;
  kind: string;
  /** A mutating webhook with a defaulter. */
  defaulting?: boolean;
  /** A validating webhook with a validator. */
  programmaticValidation?: boolean;
  /** A conversion webhook between the kind's versions, through the storage version (the hub). */
  conversion?: boolean;
}

export const WEBHOOKS_MARKER = '// +kubegen:scaffold:webhooks';
const DEFAULT_KUSTOMIZATION = 'config/default/kustomization.yaml';
const CRD_CA_MARKER = '# +kubegen:scaffold:crd-ca-injection';
const WEBHOOK_KUSTOMIZATION = 'config/webhook/kustomization.yaml';
const MANIFESTS_MARKER = '# +kubegen:scaffold:webhook-manifests';
const CRD_KUSTOMIZATION = 'config/crd/kustomization.yaml';
const STORAGE_MARKER = '+kubebuilder:storageversion';
const RESOURCES_MARKER = '# +kubegen:scaffold:webhook-resources';
const WIRING_MARKER = '# +kubegen:scaffold:webhook-wiring';

/** `/mutate-<group with dashes>-<version>-<kind>`, kubebuilder's path scheme. */
function webhookPath(kind: 'mutate' | 'validate', n: ApiNames): string {
  return `/${kind}-${n.fullGroup.replace(/\./g, '-')}-${n.version}-${n.fileBase}`;
}

export async function createWebhook(opts: CreateWebhookOptions): Promise<ScaffoldResult> {
  if (!opts.defaulting && !opts.programmaticValidation && !opts.conversion) {
    throw new ScaffoldError('nothing to scaffold: pass --defaulting, --programmatic-validation and/or --conversion');
  }
  const admission = opts.defaulting === true || opts.programmaticValidation === true;
  const root = await findProjectRoot(opts.cwd);
  const project = await readProjectFile(root);
  // Validates the names first; then the identifiers of the kind as create api recorded it (its plural).
  const wanted = apiNames(opts.group, project.domain, opts.version, opts.kind);
  const resource = project.resources.find((r) => r.group === wanted.group && r.version === wanted.version && r.kind === wanted.kind);
  if (!resource) {
    const hint = didYouMean(wanted.kind, project.resources.filter((r) => r.group === wanted.group && r.version === wanted.version).map((r) => r.kind));
    throw new ScaffoldError(`kind ${wanted.kind} does not exist in ${wanted.fullGroup}/${wanted.version}${hint}: run "kubegen create api" first`);
  }
  const n = apiNames(opts.group, project.domain, opts.version, opts.kind, resource.plural);

  const files: ScaffoldFile[] = [];
  if (admission) {
    files.push(
      { path: `src/webhooks/${n.fileBase}-webhook.ts`, content: webhookFile(n, opts) },
      { path: `src/webhooks/${n.fileBase}-webhook.test.ts`, content: unitTestFile(n, opts) },
      { path: `test/envtest/${n.fileBase}-webhook.test.ts`, content: envtestFile(n, opts, resource.namespaced) },
    );
  }
  const conversion = opts.conversion ? await conversionPlan(root, project, n, resource.namespaced) : undefined;
  if (conversion) files.push(...conversion.files);
  // The deployment side exists once config/webhook has its kustomization (the folder alone may hold the user's files
  // or a manifests.yaml that generate wrote from markers).
  const firstWebhook = !(await exists(path.join(root, WEBHOOK_KUSTOMIZATION)));
  if (firstWebhook) files.push(...deploymentFiles(project.projectName));
  await assertNoneExist(root, files);

  const mainPath = path.join(root, MAIN_FILE);
  if (!(await exists(mainPath))) throw new ScaffoldError(`${mainPath} not found; cannot register the webhook`);
  let main = await fs.readFile(mainPath, 'utf8');
  const register = (setup: string, module: string): void => {
    if (new RegExp(`\\b${setup}\\b`).test(main)) throw new ScaffoldError(`${MAIN_FILE} already calls ${setup}`);
    main = insertAbove(main, IMPORTS_MARKER, `import { ${setup} } from './webhooks/${module}.js';`, MAIN_FILE);
    main = insertAbove(main, WEBHOOKS_MARKER, `${setup}(webhookServer);`, MAIN_FILE, 'webhook');
  };
  if (admission) register(`setup${n.kind}Webhook`, `${n.fileBase}-webhook`);
  if (conversion) register(`setup${n.kind}Conversion`, `${n.fileBase}-conversion`);
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
  // config/webhook lists manifests.yaml (written by generate) once there are admission webhooks.
  let webhookKustomization: string | undefined;
  if (admission) {
    const scaffolded = files.find((f) => f.path === WEBHOOK_KUSTOMIZATION);
    const text = scaffolded ? String(scaffolded.content) : await fs.readFile(path.join(root, WEBHOOK_KUSTOMIZATION), 'utf8').catch(() => '');
    if (!/^\s*- manifests\.yaml\s*$/m.test(text)) {
      const updated = insertAbove(text, MANIFESTS_MARKER, '- manifests.yaml', WEBHOOK_KUSTOMIZATION, 'webhook');
      if (scaffolded) scaffolded.content = updated;
      else webhookKustomization = updated;
    }
  }
  if (conversion) {
    const text = kustomization ?? (await fs.readFile(path.join(root, DEFAULT_KUSTOMIZATION), 'utf8'));
    kustomization = insertAbove(text, CRD_CA_MARKER, renderTemplate('webhook/crd-ca-injection.yaml.tmpl', { crdName: conversion.crdName }), DEFAULT_KUSTOMIZATION, 'webhook');
  }

  const config = await markerSourcesEdit(root);

  await writeNewFiles(root, files);
  await fs.writeFile(mainPath, main);
  const edited = [MAIN_FILE];
  if (webhookKustomization !== undefined) {
    await fs.writeFile(path.join(root, WEBHOOK_KUSTOMIZATION), webhookKustomization);
    edited.push(WEBHOOK_KUSTOMIZATION);
  }
  for (const e of conversion?.edits ?? []) {
    await fs.writeFile(path.join(root, e.file), e.content);
    edited.push(e.file);
  }
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

interface ConversionPlan {
  files: ScaffoldFile[];
  edits: { file: string; content: string }[];
  crdName: string;
}

/**
 * The conversion webhook of a kind with two versions or more: the hub is the version marked
 * `+kubebuilder:storageversion`, which also gets `+kubegen:conversion:path=…` (so the CRD's `spec.conversion` points
 * at it); `config/crd` gets the kustomize configuration that renames the Service in the CRD.
 */
async function conversionPlan(root: string, project: ProjectFile, n: ApiNames, namespaced: boolean): Promise<ConversionPlan> {
  const versions = project.resources.filter((r) => r.group === n.group && r.kind === n.kind).map((r) => r.version);
  if (versions.length < 2) throw new ScaffoldError(`kind ${n.kind} has one version (${versions.join('')}): conversion needs two; add one with kubegen create api --version <v>`);
  const apis = await apisFolder(root);
  const typesFile = (v: string): string => path.join(apis, n.group, v, `${n.fileBase}_types.ts`);
  let hub: string | undefined;
  let hubText = '';
  for (const v of versions) {
    const text = await fs.readFile(typesFile(v), 'utf8').catch(() => '');
    if (text.includes(STORAGE_MARKER)) {
      hub = v;
      hubText = text;
    }
  }
  if (!hub) throw new ScaffoldError(`no version of ${n.kind} is marked ${STORAGE_MARKER}: mark the one to store (the conversion hub)`);
  if (hubText.includes('+kubegen:conversion')) throw new ScaffoldError(`${typesFile(hub)} already has a +kubegen:conversion marker`);
  const convertPath = `/convert-${n.fullGroup.replace(/\./g, '-')}-${n.fileBase}`;
  const spokes = versions.filter((v) => v !== hub).sort();
  const alias = (v: string): string => `${n.kind}${v[0]!.toUpperCase()}${v.slice(1)}`;
  const typeImports = [hub, ...spokes].map((v) => `import type { ${n.kind} as ${alias(v)} } from '../generated/${n.fullGroup}/${v}/index.js';`).join('\n');
  const spokeText = spokes
    .map((v) => [
      `    '${n.fullGroup}/${v}': {`,
      `      // TODO: map the fields that differ between ${v} and ${hub}; as scaffolded, both have the same spec.`,
      `      convertTo: (obj: ${alias(v)}): ${alias(hub!)} => ({ ...obj, spec: { ...obj.spec } }) as unknown as ${alias(hub!)},`,
      `      convertFrom: (obj: ${alias(hub!)}): ${alias(v)} => ({ ...obj, spec: { ...obj.spec } }) as unknown as ${alias(v)},`,
      `    },`,
    ].join('\n'))
    .join('\n');
  const crdName = `${n.plural}.${n.fullGroup}`;
  const groupId = (v: string): string => apiNames(n.group, n.domain, v, n.kind, n.plural).groupVersionMember;
  const access = (v: string): string => `${groupId(v)}.${n.pluralMember}(${namespaced ? 'namespace' : ''})`;
  const files: ScaffoldFile[] = [
    {
      path: `src/webhooks/${n.fileBase}-conversion.ts`,
      content: renderTemplate('webhook/conversion.ts.tmpl', { typeImports, kind: n.kind, hubVersion: hub, path: convertPath, varName: varName(n), fullGroup: n.fullGroup, spokes: `${spokeText}\n` }),
    },
    {
      path: `test/envtest/${n.fileBase}-conversion.test.ts`,
      content: renderTemplate('webhook/conversion.envtest.ts.tmpl', {
        kind: n.kind,
        fileBase: n.fileBase,
        fullGroup: n.fullGroup,
        hubVersion: hub,
        spokeVersion: spokes[0]!,
        path: convertPath,
        crdName,
        hubAccess: access(hub),
        spokeAccess: access(spokes[0]!),
        testNamespaceImports: namespaced ? 'createTestNamespace, deleteTestNamespace, ' : '',
        namespaceSetup: namespaced ? `  const namespace = await createTestNamespace(transport, '${n.fileBase}-conversion');\n` : '',
        namespaceTeardown: namespaced ? '    await deleteTestNamespace(transport, namespace);\n' : '',
      }),
    },
  ];
  const edits: { file: string; content: string }[] = [];
  edits.push({
    file: path.relative(root, typesFile(hub)).split(path.sep).join('/'),
    content: hubText.replace(` * ${STORAGE_MARKER}\n`, ` * ${STORAGE_MARKER}\n * +kubegen:conversion:path=${convertPath}\n`),
  });
  if (!(await exists(path.join(root, 'config/crd/kustomizeconfig.yaml')))) {
    files.push({ path: 'config/crd/kustomizeconfig.yaml', content: renderTemplate('webhook/kustomizeconfig-crd.yaml.tmpl') });
    const crdKustomization = await fs.readFile(path.join(root, CRD_KUSTOMIZATION), 'utf8').catch(() => {
      throw new ScaffoldError(`${path.join(root, CRD_KUSTOMIZATION)} not found`);
    });
    edits.push({ file: CRD_KUSTOMIZATION, content: `${crdKustomization.trimEnd()}\nconfigurations:\n  - kustomizeconfig.yaml\n` });
  }
  return { files, edits, crdName };
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

/** The stem of the webhook exports, cased as the kind's resource descriptor (`kvStoreResource` → `kvStoreDefaulter`). */
function varName(n: ApiNames): string {
  return n.exportStem;
}

function webhookFile(n: ApiNames, o: CreateWebhookOptions): string {
  const values = { kind: n.kind, varName: varName(n) };
  const runtime = [...(o.defaulting ? ['defaultingWebhook'] : []), ...(o.programmaticValidation ? ['validatingWebhook'] : [])];
  const types = [...(o.defaulting ? ['Defaulter'] : []), ...(o.programmaticValidation ? ['Validator'] : []), 'WebhookServer'];
  return renderTemplate('webhook/webhook.ts.tmpl', {
    imports: `import { ${runtime.join(', ')} } from '@kubegen/runtime/webhook';\nimport type { ${types.join(', ')} } from '@kubegen/runtime/webhook';`,
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
    sampleFile: sampleFile(n),
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
    checks += `    await assert.rejects(client.create({ ...sample, spec: { ...sample.spec, foo: 'invalid' } }), /denied the request: spec\\.foo must not be "invalid"/);\n`;
  }
  return renderTemplate('webhook/webhook.envtest.ts.tmpl', {
    kind: n.kind,
    fullGroup: n.fullGroup,
    version: n.version,
    fileBase: n.fileBase,
    sampleFile: sampleFile(n),
    clientAccess: access,
    firstPath: webhookPath(o.defaulting ? 'mutate' : 'validate', n),
    testNamespaceImports: namespaced ? 'createTestNamespace, deleteTestNamespace, ' : '',
    namespaceSetup: namespaced ? `  const namespace = await createTestNamespace(transport, '${n.fileBase}-webhook');\n` : '',
    namespaceTeardown: namespaced ? '    await deleteTestNamespace(transport, namespace);\n' : '',
    envtestChecks: checks,
  });
}
