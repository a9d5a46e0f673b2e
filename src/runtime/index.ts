/** kubegen/runtime: what generated code and controllers load. Never imports the generator side. */
export * from './client/index.js';
export * from './log.js';
