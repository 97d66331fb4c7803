// Per-driver settings that name programs cannot be pinned by HARDENED_CONFIG: `filter.<driver>.smudge`, `diff.<driver>
// .textconv`, `merge.<driver>.driver`, `credential.<url>.helper`, `pager.<command>` exist under any name the repository
// chooses, also in files it pulls in with `include.path`. So before a command that touches a working tree (the only
// place git applies attributes: filters on checkout and refresh), we read the repository's effective configuration
// once and override every such key at command-line precedence. Overrides travel as GIT_CONFIG_COUNT/KEY/VALUE, not as
// `-c key=value`, because a subsection may contain `=` and `-c` splits at the first one.
import { runGit, type GitCall } from './run.js';

/** What one program-valued key is overridden with: empty disables filters; elsewhere it makes git fail, not run. */
const RULES: ReadonlyArray<{ readonly key: RegExp; readonly value: string }> = [
  { key: /^filter\..+\.(clean|smudge|process)$/, value: '' },
  // A required filter that cannot run stops the command; with the filter disabled the content passes unchanged.
  { key: /^filter\..+\.required$/, value: 'false' },
  // Empty is not "none" for these (git tries to run "" and fails): fail closed. Callers also pass --no-textconv
  // and --no-ext-diff, and plumbing never runs them by default.
  { key: /^diff\..+\.(command|textconv)$/, value: '' },
  { key: /^merge\..+\.driver$/, value: '' },
  { key: /^(difftool|mergetool)\..+\.cmd$/, value: '' },
  // An empty helper resets the list of helpers for that URL.
  { key: /^credential\..+\.helper$/, value: '' },
  { key: /^pager\..+$/, value: 'false' },
  { key: /^gpg\..+\.program$/, value: '' },
];

/** Environment overrides for every program-valued key in a `git config --list -z` listing (pure). */
export function programOverrides(listing: Buffer | string): Record<string, string> {
  const text = typeof listing === 'string' ? listing : listing.toString('utf8');
  const keys = new Set<string>();
  for (const record of text.split('\0')) {
    const nl = record.indexOf('\n');
    const key = nl >= 0 ? record.slice(0, nl) : record;
    if (key === '') continue;
    // Section and key names are case-insensitive (git prints them lower-cased); the subsection keeps its case.
    if (RULES.some((r) => r.key.test(key))) keys.add(key);
  }
  const env: Record<string, string> = {};
  let n = 0;
  for (const key of keys) {
    const rule = RULES.find((r) => r.key.test(key));
    if (!rule) continue;
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = rule.value;
    n++;
  }
  if (n > 0) env['GIT_CONFIG_COUNT'] = String(n);
  return env;
}

/**
 * `call` with every program-valued key of the repository's current configuration neutralised. Read fresh for each
 * working-tree command: an included file can be a tracked file that the previous command just rewrote.
 * Refuses (null) when the configuration cannot be read: a command we cannot neutralise is not run.
 */
export async function neutralised(call: GitCall): Promise<GitCall | null> {
  const run = await runGit(['config', '--list', '-z', '--includes'], call);
  // Exit 1 with no output is "no configuration at all"; anything else unreadable is a refusal.
  if (run.code !== 0 && !(run.code === 1 && run.stdout.length === 0)) return null;
  return { ...call, env: { ...call.env, ...programOverrides(run.stdout) } };
}
