/** A `kubegen explore --setup` module: registers the scale-up controller of explore-controllers.ts (the mutate bug). */
import { scaleController } from '../explore-controllers.js';

export default scaleController(false);
