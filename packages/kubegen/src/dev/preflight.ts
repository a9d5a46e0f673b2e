/**
 * What `kubegen dev` checks before it starts anything, so that a bad state ends with one clear line and nothing
 * left running: the folder is a kubegen project with its dependencies installed, every fixed port is free, and
 * the envtest binaries (or the `--kubeconfig` file) are there.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A bad state `kubegen dev` reports as one line and exit 1. */
export class DevSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevSetupError';
  }
}

/** The project files `kubegen dev` runs: the manager's entry point and the project's own tsc. */
export interface ProjectLayout {
  root: string;
  /** `node_modules/.bin/tsc` (the TypeScript the project pins). */
  tsc: string;
  /** `dist/src/main.js`, what `npm start` runs. */
  main: string;
}

/** Checks that `root` is a project made by `kubegen init` with `npm install` done. */
export function checkProject(root: string): ProjectLayout {
  if (!fs.existsSync(path.join(root, 'kubegen.project.yaml'))) {
    throw new DevSetupError(`${root} is not a kubegen project (no kubegen.project.yaml): run kubegen dev (npm run dev) in a project made by kubegen init`);
  }
  const tsc = path.join(root, 'node_modules/.bin/tsc');
  if (!fs.existsSync(tsc)) throw new DevSetupError(`${path.join(root, 'node_modules')} has no TypeScript (node_modules/.bin/tsc): run npm install first`);
  return { root, tsc, main: path.join(root, 'dist/src/main.js') };
}

/** A port `kubegen dev` binds on 127.0.0.1, and the flag that sets it. */
export interface PortClaim {
  port: number;
  flag: string;
  what: string;
}

/** Resolves when `port` can be bound on 127.0.0.1; rejects with a {@link DevSetupError} naming the flag otherwise. */
export async function checkPortFree(claim: PortClaim): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new DevSetupError(
          err.code === 'EADDRINUSE'
            ? `port ${claim.port} (${claim.what}) is in use on 127.0.0.1: stop what holds it, or pick another with ${claim.flag}`
            : `cannot bind port ${claim.port} (${claim.what}, ${claim.flag}): ${err.message}`,
        ),
      );
    });
    server.listen(claim.port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** Checks every claim (distinct ports, each free); the first problem is thrown. */
export async function checkPorts(claims: readonly PortClaim[]): Promise<void> {
  const seen = new Map<number, PortClaim>();
  for (const c of claims) {
    if (c.port === 0) continue;
    const other = seen.get(c.port);
    if (other) throw new DevSetupError(`${c.flag} and ${other.flag} both ask for port ${c.port}`);
    seen.set(c.port, c);
    await checkPortFree(c);
  }
}
