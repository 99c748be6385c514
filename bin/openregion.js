#!/usr/bin/env node
// The installed entry point: register tsx, then run the TypeScript CLI.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
