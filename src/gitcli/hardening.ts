// What every git process git-blinder starts runs with, so that nothing in a repository (its .git/config, a tracked
// hooks directory, .gitattributes) nor the server's own environment can make git start another program or change
// what we read. Long-lived readers and one-shot commands both take their flags and environment from here.

/**
 * Settings passed as `-c` before every command. Repository config is read by git after these only for keys we do not
 * name, so each key that can name a program is pinned here; per-driver keys (filters, diff and merge drivers) are
 * neutralised from the repository's own listing by the caller.
 */
export const HARDENED_CONFIG: readonly string[] = [
  '-c', 'core.quotePath=false',
  '-c', 'core.fsmonitor=false',
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.pager=cat',
  '-c', 'core.editor=true',
  '-c', 'sequence.editor=true',
  '-c', 'core.askPass=',
  '-c', 'credential.helper=',
  '-c', 'diff.external=',
  '-c', 'diff.noprefix=false',
  '-c', 'diff.mnemonicPrefix=false',
  '-c', 'log.showSignature=false',
  '-c', 'commit.gpgSign=false',
  '-c', 'tag.gpgSign=false',
  '-c', 'color.ui=false',
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
