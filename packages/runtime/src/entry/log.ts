/**
 * `@kubegen/runtime/log`: logging beyond the front door (controller-runtime `pkg/log`): the logger types and
 * implementations, levels, the repeat filter.
 */
export {
  JsonLogger, parseLogLevel, pinoLogger, setLogger, type LogFormat, type LoggerOptions, type LogLevel, type PinoLike
} from '../log.js';
export { RepeatFilter } from '../log-repeats.js';
