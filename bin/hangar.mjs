#!/usr/bin/env node
// `npx hangar …` runs the TypeScript entry point directly: Node 24 strips the types.
import '../src/main.ts';
