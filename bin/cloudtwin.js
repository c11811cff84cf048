#!/usr/bin/env node
// The `cloudtwin` command. Node >= 24 runs the TypeScript sources directly.
import '../src/cli/main.ts';
