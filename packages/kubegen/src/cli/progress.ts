/** Where progress goes: a stream-like sink (usually `process.stderr`). */
export interface ProgressSink {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** Nothing is shown before this many ms since construction, so short runs print no progress at all. Default 300. */
  showAfterMs?: number;
  /** Clock in ms; injectable for tests. Default `performance.now`. */
  now?: () => number;
  /** Force on/off; default: on when the sink is a TTY. */
  enabled?: boolean;
}

/**
 * A one-line progress display (`[12/56] cert-manager.io/v1`) rewritten in place on a TTY; silent otherwise (pipes,
 * CI logs, `--quiet`). Owned by one command run; `clear()` must be called before printing anything else.
 */
export class Progress {
  private readonly enabled: boolean;
  private readonly start: number;
  private readonly now: () => number;
  private readonly showAfterMs: number;
  private shown = false;

  constructor(
    private readonly sink: ProgressSink,
    opts: ProgressOptions = {},
  ) {
    this.enabled = opts.enabled ?? sink.isTTY === true;
    this.now = opts.now ?? (() => performance.now());
    this.start = this.now();
    this.showAfterMs = opts.showAfterMs ?? 300;
  }

  /** `onProgress` callback for `generate()`: one call per group/version. */
  readonly update = (done: number, total: number, label: string): void => {
    this.show(`[${done}/${total}] ${label}`);
  };

  /** Shows a phase label such as `writing 412 files`. */
  phase(label: string): void {
    this.show(label);
  }

  /** Erases the progress line if one is shown. */
  clear(): void {
    if (!this.shown) return;
    this.sink.write('\r\x1b[2K');
    this.shown = false;
  }

  private show(text: string): void {
    if (!this.enabled || this.now() - this.start < this.showAfterMs) return;
    const width = Math.max(20, (this.sink.columns || 80) - 1);
    const line = text.length > width ? text.slice(0, width - 1) + '…' : text;
    this.sink.write(`\r\x1b[2K${line}`);
    this.shown = true;
  }
}
