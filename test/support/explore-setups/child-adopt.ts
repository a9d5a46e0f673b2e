/** A `kubegen explore --setup` module: registers the child-adopt controller of explore-controllers.ts. */
import { childController } from '../explore-controllers.js';

export default childController(true);
