/**
 * `kubegen bundle [entry] [--out dir] [--external pkg…]`: the production build of a controller for its image
 * (bundle/bundle.ts): `dist/src/main.js` and what it imports, into `dist/image/main.js` and its chunks. A scaffolded
 * project's `npm run build` runs it after `tsc`, and its Dockerfile starts `dist/image/main.js`.
 */
import type { Command } from 'commander';
import { bundleForImage } from '../bundle/bundle.js';
import { ExitCode } from './errors.js';
import type { MainIO } from './io.js';

/** Adds `bundle` to the command tree. */
export function addBundleCommand(program: Command, io: MainIO, setExit: (code: number) => void): void {
  program
    .command('bundle')
    .description("bundle the compiled controller and @kubegen/runtime into one ES module for the image (dist/image/main.js), with source maps; what the runtime loads when used stays in chunks of its own")
    .argument('[entry]', 'the compiled entry point', 'dist/src/main.js')
    .option('--out <dir>', 'output folder, replaced as a whole', 'dist/image')
    .option('--external <packages...>', "more packages to load from node_modules at run time (the runtime's optional peers are when not installed)")
    .option('-q, --quiet', 'print only errors')
    .action(async (entry: string, flags: { out: string; external?: string[]; quiet?: boolean }) => {
      const res = await bundleForImage({ cwd: io.cwd, entry, out: flags.out, external: flags.external ?? [] });
      for (const w of res.warnings) io.stderr.write(`warning: ${w}\n`);
      if (flags.quiet !== true) io.stderr.write(`bundled ${entry} into ${res.main} (${res.chunks} files, ${Math.round(res.bytes / 1024)} kB of JavaScript)\n`);
      setExit(ExitCode.ok);
    });
}
