export { emitDeepCopy } from './emit-deepcopy.js';
export type { EmitDeepCopyOptions } from './emit-deepcopy.js';
export { sampleFromSchema } from './sample-object.js';
export type { SampleOptions } from './sample-object.js';
