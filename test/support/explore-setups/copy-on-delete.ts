/** A `kubegen explore --setup` module: registers the copy-on-delete controller of explore-controllers.ts. */
import { copyController } from '../explore-controllers.js';

export default copyController(false);
