/**
 * What the command line does its I/O through: the working directory, the environment, standard output and error,
 * and a monotonic clock. `main` takes one (tests pass their own); `processIO()` is the real process's.
 */
import type { ProgressSink } from './progress.js';

export interface MainIO {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: ProgressSink;
  now: () => number;
}

/** The process's I/O. A closed stdout (`kubegen … | head -2`) ends the process quietly, as other command-line tools do. */
export function processIO(): MainIO {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (s) => void process.stdout.write(s),
    stderr: process.stderr,
    now: () => performance.now(),
  };
}
