/** A `kubegen explore --setup` module: registers the stale bug of explore-controllers.ts (a child without owner reference). */
import { mirrorController } from '../explore-controllers.js';

export default mirrorController(false);
