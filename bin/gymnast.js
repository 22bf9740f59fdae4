#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so `npx gymnast` works on a fresh clone with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
