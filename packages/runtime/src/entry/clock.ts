/**
 * `@kubegen/runtime/clock`: time (k8s.io/utils `clock`): the clock the runtime's timers use, a fake one for tests,
 * `sleep` with an abort signal, and `whenAborted`, a signal's abort as a promise.
 */
export { FakeClock, RealClock, realClock, type Clock, type TimerHandle } from '../clock.js';
export { sleep } from '../deadline.js';
export { whenAborted } from '../abort.js';
