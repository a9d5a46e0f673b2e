/** A `kubegen explore --setup` module: registers the child-leak controller of explore-controllers.ts. */
import { childController } from '../explore-controllers.js';

export default childController(false);
