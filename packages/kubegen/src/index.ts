/**
 * `kubegen`: the generator API. Parse CRDs into the model, generate files, write them atomically or verify an
 * existing output folder. The runtime generated code uses is the separate entry point `@kubegen/runtime`.
 *
 * ```ts
 * const model = await parseCrdPaths(['crds/']);
 * const files = generate(model, { runtimeImport: '@kubegen/runtime' });
 * await writeOutput('src/generated', files);            // or: (await verifyOutput('src/generated', files)).upToDate
 * ```
 */
export * from './model/index.js';
export { parseCrdPaths } from './parse/crd/index.js';
export { generate } from './generate/index.js';
export type { GeneratedFile, GenerateOptions } from './generate/index.js';
export { MARKER_FILE, MARKER_CONTENT, checkGeneratedPaths } from './generate/output-files.js';
export { OutputOwnershipError, assertOwnedOutput, writeOutput } from './cli/output/write.js';
export type { WriteOptions, WriteResult, WriterFs } from './cli/output/write.js';
export { formatVerifyReport, listFiles, verifyOutput } from './cli/output/verify.js';
export type { ChangedFile, VerifyResult } from './cli/output/verify.js';
export { unifiedDiff } from './cli/output/diff.js';
