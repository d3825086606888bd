#!/usr/bin/env node
// The `bonsai` command. It runs the CLI (./cli.ts) from the server bundle, dist/bundle/cli.js, written by
// scripts/build-server.mjs at `npm run build`: one file and a few lazy chunks parse far faster at start than the
// ~300 compiled modules. Without a current bundle (see bundle-choice.ts) it runs the compiled modules.
import { setFlagsFromString } from 'node:v8';
import { bundleIsCurrent } from './bundle-choice.js';

// A larger young generation: a write allocates a few short-lived copies of its object (decoded body, defaults,
// field set, stored copy, JSON texts); with 32 MiB semi-spaces fewer of them live through a scavenge and get
// copied (measured: about a tenth less main-thread time per pod create). Set before the server allocates.
if (process.env.BONSAI_EXP_NOSEMI !== '1') setFlagsFromString('--max-semi-space-size=32');

const bundle = new URL('../../bundle/cli.js', import.meta.url);
const compiled = new URL('./cli.js', import.meta.url);
await import(bundleIsCurrent(bundle, compiled) ? bundle.href : compiled.href);
