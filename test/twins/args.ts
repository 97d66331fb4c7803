// What the history driver sends: one tool call drawn from readable, hidden, missing and malformed paths, globs, line
// windows, pages, commit ids (visible, hidden-only, on the hidden branch, made up), cursors and proposal ids taken from
// earlier answers, regexes (pathological ones too) and writes. Arguments that stand for something twin-specific are
// placeholders (`{$label}`, `{$cursor}`, `{$proposal}`) each twin resolves to its own value.
import { Rng } from './rng.js';

/**
 * A binding the driver connects to: the bound branch, the allowlisted feature branch, an approval-mode perimeter, and
 * a perimeter that names the `search`/`fetch` aliases (listed only where a perimeter asks for them).
 */
export type BindingName = 'main' | 'feature' | 'approval' | 'dr';

/** An argument value before each twin resolves its placeholders. */
export type ArgValue = string | number | boolean | null | ArgValue[] | { [k: string]: ArgValue } | Placeholder;
/** `$fid`: the `fetch` id each twin's server would seal for that path on the `dr` binding (sealed ids name the repository). */
export type Placeholder =
  { $label: string } | { $cursor: number } | { $proposal: number } | { $fid: string } | { $lease: number };

/** One call, as both twins receive it. */
export interface Call {
  readonly binding: BindingName;
  readonly tool: string;
  readonly args: Record<string, ArgValue>;
}

/** What the draw may use: what earlier answers gave and what the plan holds. */
export interface DrawContext {
  readonly visiblePaths: readonly string[];
  readonly visibleDirs: readonly string[];
  readonly labels: readonly string[];
  /** Ids that exist in one twin or both but must read as missing (hidden-only, hidden branch). */
  readonly hiddenIds: readonly string[];
  /** How many cursors / proposal ids both twins have been given so far. */
  readonly cursors: number;
  readonly proposals: number;
  /** Pushes made so far (each write path is fresh). */
  readonly pushes: number;
  /** Leases taken so far (lease_release names one of them, or a made-up id). */
  readonly leases: number;
}

/** Paths some twin hides (outside read, privacy zones, write-only, links to hidden targets, non-UTF-8 look-alikes). */
export const HIDDEN_PATHS = [
  'secret/key.txt',
  'secret',
  'secret/dir',
  'lib/internal.ts',
  'README.md',
  'app2/x.ts',
  'app/.env',
  'app/.ENV',
  'app/config/secrets.yml',
  'app/keys',
  'app/keys/id_rsa',
  'docs/.envrc',
  'docs/Prod.DB',
  'app/credentials.csv',
  'app/.aws/sso/cache/x.json',
  'app/.aws',
  'app/app.sqlite.bak',
  'out/report.txt',
  'out',
  'out/deep',
  'app/hl',
  'app/hd',
  'app/only-link',
  'app/only-link/l',
  'app/link-key',
  'app/link-dir',
  'app/link-dir/inner.txt',
  'app/link-env',
  'app/.env.big',
  'app/.env.bomb',
  'secret/big.log',
  'secret/was-f1.ts',
  'secret/moved',
  'app/\u00ff.env',
  'app/\ufffd.env',
  'secret/\ufffd\ufffd.txt',
];

const MISSING_PATHS = ['app/nope.ts', 'nope', 'app/gen/f99.ts', 'docs/none/x.md', 'app/main.ts/x', ''];
const ODD_PATHS = [
  'app/../secret/key.txt',
  '/app/main.ts',
  'app//main.ts',
  './app/main.ts',
  'APP/main.ts',
  'app/*',
  '**',
  'app/lib/',
  '.',
];

const WORD_QUERIES = [
  'needle',
  'token',
  'TODO',
  'API_TOKEN',
  'aaaa',
  'café',
  'import',
  'moved',
  'extra line',
  'x=1',
  'a',
  'e',
];
const REGEX_QUERIES = [
  '(a+)+$',
  '(a|aa)+b',
  '(a*)*b',
  '^(?=.*token).*$',
  '(?!x)a{1,1000}!',
  '(?<=token=)a+',
  'a{30000}',
  '(.*a){20}',
  '\\bAPI_TOKEN=\\d+',
  '^.*$',
  '.',
  '(',
  '[',
  '\\',
  '(x+x+)+y',
  '(?:a|b|ab)*c',
  Array.from({ length: 400 }, (_, i) => `w${i}x`).join('|'),
  '^(\\w+\\s?)*$',
  'token|needle|alpha',
];
const SEARCH_DIRS = [
  'app/only-link',
  'app',
  'app/lib',
  'docs',
  'app/gen',
  'secret',
  'out',
  'app/.aws',
  'app/keys',
  '',
  'nope',
  'app/main.ts',
  'app/link-dir',
];

// Directories that hold only hidden files in some twin: writing a file in their place is the structural residual of
// SPEC §8 (refused vs committed), so writes never name them.
const HIDDEN_DIRS = new Set(['secret', 'secret/dir', 'secret/moved', 'app/keys', 'app/.aws', 'out', 'out/deep']);
const WRITE_HIDDEN = HIDDEN_PATHS.filter((p) => !HIDDEN_DIRS.has(p));

const PROTECTED = ['.github/workflows/ci.yml', 'app/.gitattributes', 'app/.husky/pre-commit', 'docs/CODEOWNERS'];

/** A 40-hex id no repository holds. */
const madeUp = (rng: Rng): string => Array.from({ length: 40 }, () => '0123456789abcdef'[rng.int(0, 15)]).join('');

function path(rng: Rng, ctx: DrawContext): string {
  const r = rng.next();
  if (r < 0.4 && ctx.visiblePaths.length > 0) return rng.pick(ctx.visiblePaths);
  if (r < 0.5 && ctx.visibleDirs.length > 0) return rng.pick(ctx.visibleDirs);
  if (r < 0.85) return rng.pick(HIDDEN_PATHS);
  if (r < 0.93) return rng.pick(MISSING_PATHS);
  return rng.pick(ODD_PATHS);
}

function window(rng: Rng, into: Record<string, ArgValue>): void {
  if (rng.chance(0.5)) return;
  const start = rng.pick([1, 1, 2, 3, 5, 10, 40, 100_000]);
  if (rng.chance(0.8)) into.start_line = start;
  if (rng.chance(0.7))
    into.end_line = rng.chance(0.15) ? Math.max(1, start - 1) : start + rng.pick([0, 1, 3, 20, 1000, 99_999_999]);
}

function sha(rng: Rng, ctx: DrawContext): ArgValue {
  const r = rng.next();
  if (r < 0.55 && ctx.labels.length > 0) return { $label: rng.pick(ctx.labels) };
  if (r < 0.85 && ctx.hiddenIds.length > 0) return rng.pick(ctx.hiddenIds);
  if (r < 0.95) return madeUp(rng);
  return rng.pick(['HEAD', 'main', 'wip', 'abc1234', '0'.repeat(40)]);
}

function write(rng: Rng, ctx: DrawContext): Record<string, ArgValue> {
  const n = ctx.pushes + 1;
  const r = rng.next();
  const content = rng.pick([
    `new ${n}\n`,
    `token ${n}\n`,
    'AKIAIOSFODNN7EXAMPLE\n',
    'x'.repeat(rng.pick([10, 5000, 70_000])),
  ]);
  const files: ArgValue[] = [];
  const del: ArgValue[] = [];
  if (r < 0.35)
    files.push({ path: rng.pick([`app/new-${n}.ts`, `docs/new-${n}.md`, 'app/main.ts', 'app/gen/f1.ts']), content });
  else if (r < 0.5) files.push({ path: rng.pick(['out/report.txt', `out/new-${n}.txt`, 'out/deep/y.txt']), content });
  else if (r < 0.6) files.push({ path: rng.pick(WRITE_HIDDEN), content });
  else if (r < 0.7) files.push({ path: rng.pick(PROTECTED), content });
  else if (r < 0.8)
    del.push(rng.pick(['out/report.txt', 'out/deep/y.txt', 'app/.env', 'secret/key.txt', 'app/nope.ts', 'app/hl']));
  else if (r < 0.9 && ctx.visiblePaths.length > 0) del.push(rng.pick(ctx.visiblePaths));
  else {
    files.push({ path: `app/pair-${n}.ts`, content });
    files.push({ path: rng.pick(['out/report.txt', 'app/.env', `app/pair-${n}.ts`]), content: 'second\n' });
  }
  return { message: `push ${n}\n`, files, ...(del.length > 0 ? { delete: del } : {}) };
}

// What an edit replaces: words the visible files are written in (so some edits match once, some many times, some
// never), and guesses at what a hidden file may hold (an edit must not tell whether a guess was right).
const EDIT_TEXTS = ['alpha', 'beta gamma', 'token', 'needle', 'TODO', 'API_TOKEN=', 'k\n', 'x', 'e'];
const EDIT_PATHS = ['out/report.txt', 'out/deep/y.txt', 'out/none.txt', 'app/.env', 'secret/key.txt', 'app/hl'];

/** One file's edits: a readable, hidden, write-only or missing path; edits that match once, often or never. */
function fileEdits(rng: Rng, ctx: DrawContext): Record<string, ArgValue> {
  const r = rng.next();
  const p =
    r < 0.45 && ctx.visiblePaths.length > 0
      ? rng.pick(ctx.visiblePaths)
      : r < 0.75
        ? rng.pick(EDIT_PATHS)
        : r < 0.9
          ? rng.pick(WRITE_HIDDEN)
          : rng.pick(MISSING_PATHS);
  const edits: ArgValue[] = Array.from({ length: rng.int(1, 3) }, () => {
    const e: Record<string, ArgValue> = {
      old_text: rng.pick(EDIT_TEXTS),
      new_text: rng.pick([`edit ${ctx.pushes + 1}`, '', 'AKIAIOSFODNN7EXAMPLE', 'y'.repeat(70_000)]),
    };
    if (rng.chance(0.25)) e.occurrence = rng.pick([1, 2, 3, 1000]);
    return e;
  });
  const out: Record<string, ArgValue> = { path: p, edits };
  if (rng.chance(0.2)) out.expected_blob_sha = madeUp(rng);
  return out;
}
/** A PR number: one the driver seeded (servers.ts seeds 1 to 4 on GitHub) or one that was never used. */
const pullNumber = (rng: Rng): number => rng.pick([1, 2, 3, 4, 9999]);

/** Draws one call on `binding` among the tools it lists. */
export function drawCall(rng: Rng, binding: BindingName, tools: readonly string[], ctx: DrawContext): Call {
  const tool = rng.pick(tools);
  const args: Record<string, ArgValue> = {};
  switch (tool) {
    case 'get_tree':
      if (rng.chance(0.7))
        args.path = rng.chance(0.5) ? rng.pick(['', 'app', 'docs', 'app/lib', 'app/gen']) : path(rng, ctx);
      if (rng.chance(0.5)) args.recursive = rng.chance(0.7);
      if (rng.chance(0.3)) args.page = rng.int(1, 3);
      break;
    case 'get_file':
      args.path = path(rng, ctx);
      window(rng, args);
      break;
    case 'get_files': {
      const n = rng.int(1, 6);
      args.paths = Array.from({ length: n }, () => path(rng, ctx));
      window(rng, args);
      break;
    }
    case 'search_code':
      args.query = rng.chance(0.5) ? rng.pick(WORD_QUERIES) : rng.pick(REGEX_QUERIES);
      if (rng.chance(0.6)) args.regex = rng.chance(0.7);
      if (rng.chance(0.3)) args.case_sensitive = rng.chance(0.5);
      if (rng.chance(0.5)) args.path = rng.pick(SEARCH_DIRS);
      if (rng.chance(0.4)) args.max_results = rng.pick([1, 2, 5, 200]);
      break;
    case 'changes_since':
      if (ctx.cursors > 0 && rng.chance(0.75)) args.cursor = { $cursor: rng.int(0, ctx.cursors - 1) };
      else if (rng.chance(0.3)) args.cursor = rng.pick(['garbage', 'AAAA', 'x'.repeat(300)]);
      break;
    case 'list_commits':
      if (rng.chance(0.5)) args.path = path(rng, ctx);
      if (rng.chance(0.5)) args.per_page = rng.pick([1, 2, 3, 100]);
      if (rng.chance(0.4)) args.page = rng.int(1, 4);
      break;
    case 'get_commit':
      args.sha = sha(rng, ctx);
      if (rng.chance(0.3)) args.files_page = rng.int(1, 3);
      break;
    case 'push_files':
      Object.assign(args, write(rng, ctx));
      break;
    case 'edit_file':
      Object.assign(args, fileEdits(rng, ctx));
      if (rng.chance(0.5)) args.message = `edit ${ctx.pushes + 1}\n`;
      break;
    case 'edit_files':
      args.message = `edits ${ctx.pushes + 1}\n`;
      args.files = Array.from({ length: rng.int(1, 3) }, () => fileEdits(rng, ctx));
      break;
    case 'search':
      // The alias takes one literal query (no regex, no path): the same core as search_code.
      args.query = rng.pick(WORD_QUERIES);
      break;
    case 'fetch':
      // A sealed id for a readable, hidden or missing path (the same id a search result would carry), or a forged one.
      args.id = rng.chance(0.85)
        ? { $fid: path(rng, ctx) }
        : rng.pick(['gbi1.AAAA', 'not-an-id', 'gbi1.' + 'x'.repeat(60)]);
      break;
    case 'proposal_status':
    case 'proposal_cancel':
      args.proposal_id =
        ctx.proposals > 0 && rng.chance(0.8)
          ? { $proposal: rng.int(0, ctx.proposals - 1) }
          : rng.pick(['p' + 'a'.repeat(24), 'nope', 'p234567abcdefghijklmnopqrs']);
      break;
    case 'activity':
      if (rng.chance(0.7))
        args.path = rng.chance(0.3) ? rng.pick(['', 'app', 'docs', 'out', 'secret']) : path(rng, ctx);
      break;
    case 'lease_acquire': {
      // Readable files and globs, write-only ones, hidden and outside-write ones (refused by the write scope alone).
      const pick = (): string =>
        rng.chance(0.5)
          ? path(rng, ctx)
          : rng.pick(['app/**', 'docs/*.md', 'out/**', 'secret/**', 'app/lib/**', '**', 'app/[', 'lib/**']);
      args.paths = Array.from({ length: rng.int(1, 3) }, pick);
      args.ttl = rng.pick([1, 60, 3600, 3601, 86_400]);
      break;
    }
    case 'lease_release':
      args.lease_id =
        ctx.leases > 0 && rng.chance(0.8)
          ? { $lease: rng.int(0, ctx.leases - 1) }
          : rng.pick(['ls_000000000000000000000000', 'nope', 'x'.repeat(64)]);
      break;
    // Pull requests (issue 22): numbers of the seeded PRs (the bound branch's, other branches', hidden-only ones) and a
    // made-up one; paths readable, hidden or missing.
    case 'create_pull_request':
      args.title = rng.pick(['Twin PR', 'fix: infra']);
      args.body = rng.pick(['', 'Body of the PR.\n']);
      if (rng.chance(0.3)) args.base = rng.pick(['main', 'feature', 'wip', 'nowhere']);
      if (rng.chance(0.3)) args.draft = rng.chance(0.5);
      break;
    case 'list_pull_requests':
      if (rng.chance(0.6)) args.state = rng.pick(['open', 'closed', 'all']);
      if (rng.chance(0.2)) args.page = rng.int(1, 2);
      break;
    case 'get_pull_request':
      if (rng.chance(0.7)) args.number = pullNumber(rng);
      break;
    case 'get_pull_request_files':
      args.number = pullNumber(rng);
      if (rng.chance(0.4)) args.path = path(rng, ctx);
      if (rng.chance(0.2)) args.page = rng.int(1, 2);
      break;
    case 'list_pull_request_comments':
      args.number = pullNumber(rng);
      if (rng.chance(0.2)) args.page = rng.int(1, 2);
      break;
    case 'get_pull_request_status':
      args.number = pullNumber(rng);
      break;
    default:
      // A tool this driver does not know: the coverage test names it; calling it bare still compares refusals.
      break;
  }
  return { binding, tool, args };
}

/** Resolves a call's placeholders with one twin's values. */
export function resolveArgs(v: ArgValue, look: (p: Placeholder) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => resolveArgs(x, look));
  if (v !== null && typeof v === 'object') {
    if ('$label' in v || '$cursor' in v || '$proposal' in v || '$fid' in v || '$lease' in v)
      return look(v as Placeholder);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveArgs(x as ArgValue, look)]));
  }
  return v;
}

export { Rng };
