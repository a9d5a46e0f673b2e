/**
 * The files `kubegen dev` reacts to, and how: API types (`apis/`) and the marker sources of `codegen.config.yaml`'s
 * `rbacSources` (default `src/controllers`, `src/webhooks`) need `generate` and a build; any other TypeScript under
 * `src/` needs a build; YAML under `config/` needs the cluster synced. The generated folder (`out`) and `dist/` are
 * outputs, never inputs. Changes are collected for a short quiet period (editors write a file in several steps)
 * and handed over as one batch.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What a batch of changed files asks for. */
export interface ChangeSet {
  generate: boolean;
  build: boolean;
  /** config/ changed: reinstall what differs. */
  sync: boolean;
  /** The changed files, relative to the project root (for the log line). */
  files: string[];
}

/** Where a project's inputs are (absolute paths). */
export interface SourceLayout {
  root: string;
  apis: string;
  /** Generated code: ignored. */
  out: string;
  /** Folders whose markers generate reads besides `apis`. */
  markerSources: string[];
}

const inside = (dir: string, file: string): boolean => file === dir || file.startsWith(dir + path.sep);

/** What a change of `file` (absolute) needs, or undefined when it needs nothing. */
export function classify(layout: SourceLayout, file: string): Omit<ChangeSet, 'files'> | undefined {
  // Hidden files and folders (editor swap files, generate's .<out>.kubegen-tmp-* staging folders) and backups.
  if (path.relative(layout.root, file).split(path.sep).some((part) => part.startsWith('.')) || file.endsWith('~')) return undefined;
  if (inside(layout.out, file) || inside(path.join(layout.root, 'dist'), file) || inside(path.join(layout.root, 'node_modules'), file)) return undefined;
  if (inside(path.join(layout.root, 'config'), file)) return /\.ya?ml$/.test(file) ? { generate: false, build: false, sync: true } : undefined;
  if (!/\.(ts|mts|cts|json)$/.test(file)) return undefined;
  if (inside(layout.apis, file) || layout.markerSources.some((d) => inside(d, file))) return { generate: true, build: true, sync: false };
  if (inside(path.join(layout.root, 'src'), file)) return { generate: false, build: true, sync: false };
  return undefined;
}

/**
 * Watches the project (see the module comment) and calls `onBatch` after `quietMs` without further changes. One
 * watcher per folder (Node's recursive `fs.watch` on Linux loses changes of a file replaced by an editor's save, or
 * written twice in a row); folders made later are watched as they appear.
 */
export class SourceWatch {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private pending: ChangeSet | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly layout: SourceLayout,
    private readonly onBatch: (changes: ChangeSet) => void,
    private readonly quietMs = 300,
  ) {}

  /** Starts watching `src/`, the API folder, the marker folders and `config/` (those that exist). */
  start(): void {
    for (const dir of new Set([path.join(this.layout.root, 'src'), this.layout.apis, path.join(this.layout.root, 'config'), ...this.layout.markerSources])) this.watchTree(dir);
  }

  /** Stops watching; a batch not yet handed over is dropped. */
  stop(): void {
    this.stopped = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    clearTimeout(this.timer);
    this.pending = undefined;
  }

  /** Watches `dir` and every folder below it that can hold inputs. */
  private watchTree(dir: string): void {
    if (this.stopped || this.watchers.has(dir) || this.ignoredFolder(dir)) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // missing, or gone again
    }
    const watcher = fs.watch(dir, (_event, name) => {
      if (name) this.changed(path.join(dir, name.toString()));
    });
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(dir);
    });
    this.watchers.set(dir, watcher);
    for (const e of entries) if (e.isDirectory()) this.watchTree(path.join(dir, e.name));
  }

  private ignoredFolder(dir: string): boolean {
    const rel = path.relative(this.layout.root, dir);
    return rel.split(path.sep).some((part) => part.startsWith('.') || part === 'node_modules' || part === 'dist') || inside(this.layout.out, dir);
  }

  private changed(file: string): void {
    if (this.stopped || this.ignoredFolder(file)) return;
    let entries: fs.Dirent[] | undefined;
    try {
      if (fs.statSync(file).isDirectory()) entries = fs.readdirSync(file, { withFileTypes: true });
    } catch {
      // deleted: a change like any other
    }
    if (entries) {
      this.watchTree(file); // a new folder: files written into it before its watch began count as changed
      for (const e of entries) if (e.isFile()) this.changed(path.join(file, e.name));
      return;
    }
    const need = classify(this.layout, file);
    if (!need) return;
    const p = (this.pending ??= { generate: false, build: false, sync: false, files: [] });
    p.generate ||= need.generate;
    p.build ||= need.build;
    p.sync ||= need.sync;
    const rel = path.relative(this.layout.root, file);
    if (!p.files.includes(rel)) p.files.push(rel);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const batch = this.pending;
      this.pending = undefined;
      if (batch) this.onBatch(batch);
    }, this.quietMs);
  }
}
