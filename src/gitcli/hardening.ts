// What every git process git-blinder starts runs with, so that nothing in a repository (its .git/config, a tracked
// hooks directory, .gitattributes) nor the server's own environment can make git start another program or change
// what we read. Long-lived readers and one-shot commands both take their flags and environment from here.

/**
 * Settings passed as `-c` before every command. `-c` has the highest precedence, so each single key that can name a
 * program is pinned here; per-driver keys (filters, diff and merge drivers, per-URL credential helpers, per-command
 * pagers) exist under names the repository picks and are neutralised from its own listing (`repo-config.ts`) before
 * every command that touches a working tree.
 *
 * Checked (test/gitcli/hardening.test.ts): an empty `core.askPass`/`credential.helper` means "none"; an empty
 * `diff.external`, `core.sshCommand` or `gpg.program` is NOT "none" — git tries to run "" and fails — which fails
 * closed, so they stay empty (and we never run porcelain diffs without --no-ext-diff, ssh, or signing).
 */
export const HARDENED_CONFIG: readonly string[] = [
  '--no-pager',
  '-c',
  'core.quotePath=false',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'core.editor=true',
  '-c',
  'sequence.editor=true',
  '-c',
  'core.askPass=',
  '-c',
  'core.sshCommand=',
  '-c',
  'core.attributesFile=/dev/null',
  '-c',
  'credential.helper=',
  '-c',
  'diff.external=',
  '-c',
  'gpg.program=',
  '-c',
  'protocol.allow=never',
  '-c',
  'submodule.recurse=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'log.showSignature=false',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'tag.gpgSign=false',
  '-c',
  'color.ui=false',
  '--literal-pathspecs',
];

/**
 * The environment git runs with: PATH from the parent (to find git) and nothing else inherited, so GIT_DIR,
 * GIT_INDEX_FILE or a user's ~/.gitconfig in the server's environment can never change what we read or write.
 * `path` is the parent's PATH, passed in by the caller.
 */
export function hardenedEnv(path: string | undefined): Record<string, string> {
  return {
    PATH: path ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
    LANG: 'C',
  };
}
