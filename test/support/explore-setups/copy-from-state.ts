/** A `kubegen explore --setup` module: registers the copy-from-state controller of explore-controllers.ts. */
import { copyController } from '../explore-controllers.js';

export default copyController(true);
