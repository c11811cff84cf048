import { Command } from 'commander';
import { registerCatalogCommands } from '../services/media/catalog/cli.ts';
import { VERSION } from '../version.ts';
import { addServeOptions } from './serveOptions.ts';

// This module defines the commands and their options only: `cloudtwin --version` and `--help`
// load nothing of the server. A command's action imports what it runs (docs/operations.md,
// "Start-up and lazy loading").

const program = new Command();
// Options after `exec`'s command are the command's (`cloudtwin exec pytest -q`).
program.enablePositionalOptions();
program.name('cloudtwin').description('Wire-compatible API Keys v2, Compute v1 instance templates (global and regional) and media search v3').version(VERSION);

// `serve` and `exec` share their options (src/cli/serveOptions.ts); each imports what it runs when it runs.
const serve = addServeOptions(program.command('serve').description('start the server (SQLite in ./.cloudtwin by default)'), { port: '8080' });
serve.action(async () => (await import('./serve.ts')).runServe(serve));

const exec = addServeOptions(
  program
    .command('exec')
    .summary('run a command (a test suite) with a server around it')
    .description(
      "start a server (in memory, on a free port, unless options say otherwise), run COMMAND with CLOUDTWIN_URL, CLOUDTWIN_ADMIN_TOKEN, CLOUDTWIN_HOST, CLOUDTWIN_PORT and gcloud's endpoint overrides set, stop the server when it ends and exit with the command's status (the server's log is printed when the command failed)",
    )
    .usage('[serve options] -- COMMAND [ARGS...]')
    .argument('<command...>', 'the command to run, and its arguments')
    .passThroughOptions(),
  { port: '0', dataDirShown: 'none: in memory unless a data directory or database is given' },
);
exec.action(async (command: string[]) => (await import('./exec.ts')).runExec(exec, command));

registerCatalogCommands(program);

// Usage errors (an unknown flag, a missing value, a value not among the choices) exit with 2.
program.exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));
for (const command of program.commands) command.exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

program.parseAsync(process.argv).catch((err) => {
  process.stderr.write(`cloudtwin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
