#!/usr/bin/env node
// The `bonsai` command. It runs the CLI (./cli.ts) from the server bundle, dist/bundle/cli.js, written by
// scripts/build-server.mjs at `npm run build`: one file and a few lazy chunks parse far faster at start than the
// ~300 compiled modules. Without a current bundle (see bundle-choice.ts) it runs the compiled modules.
import { bundleIsCurrent } from './bundle-choice.js';

const bundle = new URL('../../bundle/cli.js', import.meta.url);
const compiled = new URL('./cli.js', import.meta.url);
await import(bundleIsCurrent(bundle, compiled) ? bundle.href : compiled.href);
