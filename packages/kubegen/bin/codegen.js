#!/usr/bin/env node
// Entry point of the `codegen` and `kubegen` commands. The CLI itself lives in src/cli (built into dist/).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
