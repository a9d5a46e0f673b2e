/**
 * `kubegen sample --kind <kind> [--api-version <group/version>]` without `--crds`/`--apis`: a minimal object of a
 * built-in kind that kube-apiserver accepts (`generate/sample/builtin.ts`), as a YAML document on stdout. The sample
 * module (and the runtime it reads version priorities from) is loaded only here.
 */
import { portableYaml } from '../generate/portable-yaml.js';
import type { CommandIO } from './commands.js';
import { CliInputError, ExitCode } from './errors.js';

/** What picks the built-in kind: the name as kubectl takes it, an API version (`policy/v1`) or a version name (`v1beta1`). */
export interface BuiltinSampleFlags {
  kind: string;
  apiVersion?: string;
  version?: string;
  namespace?: string;
}

/** Prints the sample; an unknown kind or version is an input error (exit 1) naming the closest ones. */
export async function runBuiltinSample(flags: BuiltinSampleFlags, io: Pick<CommandIO, 'stdout' | 'stderr'>): Promise<number> {
  const { builtinKindCandidates, sampleOfBuiltin, resolveBuiltinKind, UnknownKindError } = await import('../generate/sample/builtin.js');
  if (flags.apiVersion !== undefined && flags.version !== undefined) throw new CliInputError('--api-version and --version both pick the version: give one');
  const apiVersion = flags.apiVersion ?? flags.version;
  const query = { kind: flags.kind, ...(apiVersion !== undefined ? { apiVersion } : {}) };
  try {
    const kindVersion = resolveBuiltinKind(query);
    // Another group has a kind of that name too (Event): say which one this is and how to pick the other.
    const others = [...new Set(builtinKindCandidates(query).filter((c) => c.resource.group !== kindVersion.resource.group).map((c) => (c.resource.group ? `${c.resource.names.plural}.${c.resource.group}` : c.resource.names.plural)))];
    if (others.length > 0) {
      const apiVersionOf = `${kindVersion.resource.group ? `${kindVersion.resource.group}/` : ''}${kindVersion.version.name}`;
      io.stderr.write(`note: ${flags.kind} is also ${others.join(', ')}; this is ${kindVersion.resource.names.kind} ${apiVersionOf} (pick another with --api-version or --kind <plural>.<group>)\n`);
    }
    io.stdout(`---\n${portableYaml(sampleOfBuiltin(kindVersion, flags.namespace !== undefined ? { namespace: flags.namespace } : {}))}`);
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof UnknownKindError) throw new CliInputError(err.message);
    throw err;
  }
}
