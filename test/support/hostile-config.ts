// A repository whose own configuration and tracked files try every way git knows to start a program: each program
// is one script that appends to a marker file. Set up after the commits (the test's own git must not run them).
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gitIn } from './gitdir.js';

/** Writes the marker script into `dir` and returns its path and the marker's. */
export async function markerScript(dir: string): Promise<{ script: string; marker: string }> {
  const marker = join(dir, 'MARKER');
  const script = join(dir, 'evil.sh');
  // `cat` keeps filters and textconv producing output, so a run that was not stopped is not also a failed command.
  await writeFile(script, `#!/bin/sh\necho "ran: $0 $*" >> '${marker}'\ncat\n`);
  await chmod(script, 0o755);
  return { script, marker };
}

/** The marker's content, or '' while no program ran. */
export async function markerText(marker: string): Promise<string> {
  return readFile(marker, 'utf8').catch(() => '');
}

/** The tracked files a hostile repository commits (hooks directory, attributes naming drivers, an included config). */
export const HOSTILE_FILES: Record<string, string> = {
  'a.txt': 'a\n',
  'b.pr': 'process filter\n',
  'c.inc': 'included filter\n',
  '.gitattributes': '* filter=ev diff=ev merge=ev\n*.pr filter=pr\n*.inc filter=inc diff=inc\n',
  'hooks/README': 'hooks live here\n',
  'tools/extra.gitconfig': '',
};

/** Every program-valued setting, pointed at `script`, in `repoDir`'s own config (and in a tracked included file). */
export async function makeHostile(repoDir: string, script: string): Promise<void> {
  const hooks = [
    'reference-transaction',
    'post-checkout',
    'post-index-change',
    'pre-commit',
    'post-commit',
    'post-merge',
    'pre-auto-gc',
    'post-rewrite',
    'fsmonitor-watchman',
  ];
  await mkdir(join(repoDir, 'hooks'), { recursive: true });
  for (const h of hooks) {
    await writeFile(join(repoDir, 'hooks', h), `#!/bin/sh\nexec '${script}' hook-${h}\n`);
    await chmod(join(repoDir, 'hooks', h), 0o755);
  }
  // The included file is tracked: an agent that can write it adds drivers the server never saw at start.
  await writeFile(
    join(repoDir, 'tools/extra.gitconfig'),
    `[filter "inc"]\n\tsmudge = ${script}\n\tclean = ${script}\n[diff "inc"]\n\ttextconv = ${script}\n`,
  );
  // Committed before the configuration turns hostile (this git must not run them): hooks and include are tracked.
  await gitIn(repoDir, ['add', 'hooks', 'tools']);
  await gitIn(repoDir, ['commit', '-q', '-m', 'tracked hooks and included config']);
  const set: [string, string][] = [
    ['core.hooksPath', 'hooks'],
    ['core.fsmonitor', script],
    ['core.pager', script],
    ['pager.log', script],
    ['pager.diff', script],
    ['core.editor', script],
    ['sequence.editor', script],
    ['core.askPass', script],
    ['core.sshCommand', script],
    ['core.alternateRefsCommand', script],
    ['credential.helper', script],
    ['credential.https://example.com.helper', script],
    ['diff.external', script],
    ['diff.ev.command', script],
    ['diff.ev.textconv', script],
    ['filter.ev.clean', script],
    ['filter.ev.smudge', script],
    ['filter.ev.required', 'true'],
    ['filter.pr.process', script],
    ['filter.pr.required', 'true'],
    ['merge.ev.driver', script],
    ['gpg.program', script],
    ['gpg.ssh.program', script],
    ['commit.gpgSign', 'true'],
    ['log.showSignature', 'true'],
    ['uploadpack.packObjectsHook', script],
    ['include.path', '../tools/extra.gitconfig'],
  ];
  for (const [k, v] of set) await gitIn(repoDir, ['config', '--add', k, v]);
}
