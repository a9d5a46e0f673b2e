/**
 * Preloaded into a process the benches measure (`node --expose-gc --import <this file> main.js`): SIGUSR2 runs a
 * full garbage collection, so that a heap reading taken just after is the live heap, not whatever garbage the last
 * collection left. Nothing else changes in the process.
 */
process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
});
