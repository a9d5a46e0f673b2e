/**
 * The packages `@kubegen/runtime/validation` needs and nothing else in the runtime loads: `re2js` (RE2 patterns)
 * and, for CEL rules, `@bufbuild/cel`, `@bufbuild/cel-spec` and `@bufbuild/protobuf`. They are dependencies of the
 * `kubegen` CLI (`kubegen validate`, `kubegen sample`, the fake's schema validation in tests) and not of the runtime,
 * not even optional peers: npm keeps an optional peer in a production install (`npm prune --omit=dev`, `npm ci
 * --omit=dev`) whenever a dev dependency such as the CLI installs it, so a controller would carry their ~11 MB.
 *
 * Contract: importing the validation entry never loads them. `requireValidationPackages()` (what `createValidator`
 * and the `CrdValidator` constructor call) throws one error naming every missing package and the `npm install` line
 * that adds them; `re2()` loads `re2js` (synchronously, its CommonJS build, one instance for the whole layer) or
 * throws that error.
 */
import { createRequire } from 'node:module';

/** Each package with the version the runtime is tested with (the CLI's dependency), and a module that proves it is there. */
export const VALIDATION_PACKAGES: Readonly<Record<string, { version: string; probe: string }>> = {
  '@bufbuild/cel': { version: '0.6.1', probe: '@bufbuild/cel' },
  '@bufbuild/cel-spec': { version: '0.6.1', probe: '@bufbuild/cel-spec/cel/expr/syntax_pb.js' },
  '@bufbuild/protobuf': { version: '2.17.0', probe: '@bufbuild/protobuf' },
  re2js: { version: '2.10.0', probe: 're2js' },
};

const requireHere = createRequire(import.meta.url);
let checked = false;

/** The error for `missing` packages (see the module comment). */
export function missingPackagesError(missing: readonly string[]): Error {
  const install = Object.entries(VALIDATION_PACKAGES).map(([name, p]) => `${name}@${p.version}`);
  return new Error(
    `@kubegen/runtime/validation needs the packages ${missing.join(', ')}, which are not installed ` +
      `(the kubegen CLI brings them; @kubegen/runtime does not depend on them): npm install ${install.join(' ')}`,
  );
}

/** Throws `missingPackagesError` unless every validation package can be found. Cheap after the first success. */
export function requireValidationPackages(): void {
  if (checked) return;
  const missing = Object.entries(VALIDATION_PACKAGES).flatMap(([name, p]) => {
    try {
      requireHere.resolve(p.probe);
      return [];
    } catch {
      return [name];
    }
  });
  if (missing.length > 0) throw missingPackagesError(missing);
  checked = true;
}

/** What the layer uses of `re2js`'s `RE2JS` (declared here, so the runtime's typings never name the package). */
export interface Re2 {
  compile(pattern: string): { matcher(input: string): { find(): boolean } };
}
let loaded: Re2 | undefined;

/** `re2js`'s `RE2JS`, loaded on first use (see the module comment). */
export function re2(): Re2 {
  if (!loaded) {
    try {
      loaded = (requireHere('re2js') as { RE2JS: Re2 }).RE2JS;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw missingPackagesError(['re2js']);
      throw err;
    }
  }
  return loaded;
}
