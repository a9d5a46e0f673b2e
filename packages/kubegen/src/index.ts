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
export { MARKER_FILE, MARKER_CONTENT, checkGeneratedPaths } from './output/output-files.js';
export { OutputOwnershipError, assertOwnedOutput, writeOutput } from './output/write.js';
export type { WriteOptions, WriteResult, WriterFs } from './output/write.js';
export { formatVerifyReport, listFiles, verifyOutput } from './output/verify.js';
export type { ChangedFile, VerifyResult } from './output/verify.js';
export { unifiedDiff } from './output/diff.js';
