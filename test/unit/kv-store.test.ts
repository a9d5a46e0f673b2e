/**
 * examples/kv-store's own unit tests (they live next to its code, as a user's project keeps them, and run there with
 * `npm test`), run here too with the rest of the repo's unit tests: the flags, the PodDisruptionBudget version (said,
 * discovered, or served in neither version), and the reconcile on the fake API (every owned object applied with its
 * fields and owner reference, conditions, the finalizer deleting the store's claims, refused applies).
 */
import '../../examples/kv-store/src/options.test.js';
import '../../examples/kv-store/src/disruption.test.js';
import '../../examples/kv-store/src/reconciler.test.js';
