/**
 * Running the compiled `cms` command in a child process, as an operator does (test/integration/cli*.test.ts): its
 * exit code and output, bounded in time, in a clean environment with its own data folder.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_ROOT } from '../../kernel/version.js';
import { tempDir } from './kernel.js';

export const CLI = join(DIST_ROOT, 'kernel', 'cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A clean environment: nothing from the caller's PORT, DB_* or CMS_* leaks into the child. */
export function childEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CMS_DATA_DIR: dataDir, ...extra };
}

/** Runs the compiled CLI to completion (bounded: 60 s) with `input` on its standard input; its exit code and output. */
export function runCli(args: string[], cwd: string, env: NodeJS.ProcessEnv, input = ''): Promise<CliResult> {
  return runFile(process.execPath, [CLI, ...args], cwd, env, input);
}

/** Runs a program to completion (bounded: 60 s) with `input` on its standard input (runCli; the CLI under `script` for a terminal). */
export function runFile(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { cwd, env, timeout: 60000, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/** A temporary project folder with a cms.config.json and its own data folder. */
export function project(
  config: Record<string, unknown>,
  cleanup: string[],
  extra: Record<string, string> = {},
): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = tempDir('cms-cli-');
  cleanup.push(cwd);
  writeFileSync(join(cwd, 'cms.config.json'), JSON.stringify(config, null, 2));
  return { cwd, env: childEnv(join(cwd, 'data'), extra) };
}
