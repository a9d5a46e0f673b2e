/**
 * examples/ttl-janitor's own unit tests (they live next to its code, as a user's project keeps them, and run there
 * with `npm test`), run here too with the rest of the repo's unit tests: TTL parsing and the decision, the flags and
 * the resource filter, the reconcile on the fake transport, and the janitor following a fake cluster's CRDs.
 */
import '../../examples/ttl-janitor/src/ttl.test.js';
import '../../examples/ttl-janitor/src/options.test.js';
import '../../examples/ttl-janitor/src/reconciler.test.js';
import '../../examples/ttl-janitor/src/janitor.test.js';
