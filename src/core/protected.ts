import * as z from 'zod/v4';
import { compileGlobs, isLiteralSegment, validateGlob } from './glob.js';
import { DEFAULT_PRIVACY, type PrivacyZones } from './privacy.js';
import { fail, ok, type Result } from './result.js';

/**
 * Files that are refused to writing tools even inside `write`, unless the perimeter grants them explicitly in
 * `allow_protected`. They either run with CI secrets, govern review, or change how git reads every other file:
 *
 * - CI definitions: GitHub workflows and local actions (run with repository secrets), and the other CI systems'
 *   files (GitLab, CircleCI, Buildkite, Azure, Travis, Jenkins, Drone, Woodpecker, Bitbucket, AppVeyor, Gitea and
 *   Forgejo Actions, Cirrus, Semaphore, AWS CodeBuild, Google Cloud Build).
 * - Bots and GitHub settings that act or grant: Dependabot and Renovate (open PRs, can run update scripts), the
 *   settings app's `.github/settings.yml` (collaborators, branch protection).
 * - `CODEOWNERS` where GitHub or GitLab looks for it (root, `.github/`, `docs/`, `.gitlab/`): who must approve changes.
 * - Code that runs on a developer's machine without being asked: git hook managers (`.husky/`, `.githooks/`,
 *   pre-commit, lefthook, overcommit), dev containers and cloud workspaces (`.devcontainer/`, `.gitpod.yml`; they run
 *   `postCreateCommand` with the developer's credentials), VS Code tasks and settings (tasks run on folder open).
 * - Files that change how git reads every other file or whom it credits: `.gitmodules` (points clones at other
 *   repositories), `.gitattributes` (any depth, it applies per directory: `-diff` hides changes from review,
 *   `filter`/`eol`/`working-tree-encoding` rewrite content on checkout, `merge` drivers), `.lfsconfig` (sends LFS
 *   content to another server), a tracked `.gitconfig` (meant for `include.path`), `.mailmap` (rewrites authors in
 *   log and blame), `.git-blame-ignore-revs` (hides commits from blame).
 * - Every privacy zone (`privacy.ts`): an agent cannot read those files, so it must not overwrite them blindly.
 *
 * Matching is case-insensitive, like privacy: `.GitHub/Workflows/x.yml` is the same directory on a macOS checkout.
 */
export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = [
  // GitHub: what runs, what acts on the repository, who approves.
  '.github/workflows/**',
  '.github/actions/**',
  '.github/dependabot.{yml,yaml}',
  '.github/settings.{yml,yaml}',
  '.github/renovate.{json,json5}',
  'renovate.{json,json5}',
  '.renovaterc',
  '.renovaterc.{json,json5}',
  'CODEOWNERS',
  '.github/CODEOWNERS',
  'docs/CODEOWNERS',
  '.gitlab/CODEOWNERS',
  // Other CI systems.
  '.gitlab-ci.yml',
  '.gitlab/ci/**',
  '.circleci/**',
  '.buildkite/**',
  'azure-pipelines.{yml,yaml}',
  '.azure-pipelines/**',
  '.travis.yml',
  '**/Jenkinsfile',
  '.drone.{yml,yaml}',
  '.woodpecker.{yml,yaml}',
  '.woodpecker/**',
  'bitbucket-pipelines.yml',
  '{,.}appveyor.yml',
  '.gitea/workflows/**',
  '.forgejo/workflows/**',
  '.cirrus.{yml,star}',
  '.semaphore/**',
  'buildspec.{yml,yaml}',
  'cloudbuild.{yml,yaml,json}',
  // Runs on a developer's machine: hooks, dev containers, editor tasks.
  '.husky/**',
  '.githooks/**',
  '.pre-commit-config.{yml,yaml}',
  '{,.}lefthook{,-local}.{yml,yaml,json,toml}',
  '.overcommit.yml',
  '.devcontainer/**',
  '.devcontainer.json',
  '.gitpod.yml',
  '.vscode/tasks.json',
  '.vscode/settings.json',
  // How git reads other files, and whom it credits.
  '**/.gitmodules',
  '**/.gitattributes',
  '.lfsconfig',
  '**/.gitconfig',
  '.mailmap',
  '.git-blame-ignore-revs',
];

/**
 * Checks one `allow_protected` entry: a valid perimeter glob that names something. A grant with no literal segment
 * (`**`, `*`, `**\/*`) would silently grant every protected file, which is what `write` already says; the point of
 * the list is that each protected file is granted on purpose.
 */
export function validateProtectedGrant(glob: unknown): Result<string, 'invalid_grant'> {
  const shape = validateGlob(glob);
  if (!shape.ok) return fail('invalid_grant', shape.message);
  if (!shape.value.split('/').some((s) => isLiteralSegment(s))) {
    return fail(
      'invalid_grant',
      `Grant "${shape.value}" must name a file or directory: use an exact path or a glob with at least one literal segment.`,
    );
  }
  return ok(shape.value);
}

/** Zod schema for the perimeter field `allow_protected: string[]` (exact paths or explicit globs). */
export const AllowProtectedList = z.array(
  z.string().superRefine((g, ctx) => {
    const r = validateProtectedGrant(g);
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
  }),
);

/** Outcome of the protected-path check for one write. */
export type ProtectedCheck = { ok: true } | { ok: false; code: 'protected_path'; paths: string[]; message: string };

/** A compiled protected-path policy for one perimeter. */
export interface ProtectedPolicy {
  /** True when writing `path` needs an explicit grant (or is never possible). */
  isProtected(path: string): boolean;
  /** True when `path` is protected and the perimeter granted it (never true inside `.git`). */
  isGranted(path: string): boolean;
  /** Judges every path one write creates, changes or deletes; refuses it whole when any is protected and not granted. */
  check(paths: readonly string[]): ProtectedCheck;
}

/** What a protected policy is built from. */
export interface ProtectedOptions {
  /** The perimeter's `allow_protected` entries (validated with `AllowProtectedList`). Matched case-sensitively. */
  readonly grants?: readonly string[];
  /** The privacy zones in force for this perimeter (defaults to the built-in zones). */
  readonly zones?: PrivacyZones;
  /** Extra protected patterns (server-wide), added to the defaults. */
  readonly patterns?: readonly string[];
}

/**
 * Compiles the protected-path policy once per perimeter version. Grants only ever lift protection for paths that
 * `write` already allows; they never widen `write`. Grants match case-sensitively (the agent must use the spelling
 * the operator granted) while protection matches case-insensitively: both asymmetries err on refusing.
 */
export function compileProtected(options: ProtectedOptions = {}): ProtectedPolicy {
  const zones = options.zones ?? DEFAULT_PRIVACY;
  const protectedGlobs = compileGlobs(
    [...DEFAULT_PROTECTED_PATTERNS, ...(options.patterns ?? [])].map((g) => g.toLowerCase()),
  );
  const grants = compileGlobs(options.grants ?? []);

  const isProtected = (path: string): boolean =>
    isGitMetadata(path) || zones.isPrivate(path) || protectedGlobs.matches(path.toLowerCase());
  const isGranted = (path: string): boolean => !isGitMetadata(path) && isProtected(path) && grants.matches(path);

  return {
    isProtected,
    isGranted,
    check(paths) {
      const refused = [...new Set(paths.filter((p) => isProtected(p) && !isGranted(p)))];
      if (refused.length === 0) return { ok: true };
      return { ok: false, code: 'protected_path', paths: refused, message: refusalMessage(refused) };
    },
  };
}

/**
 * True when a path lies in git's own metadata (`.git` as any segment, in any case, with Windows' trailing dots or
 * spaces, or its 8.3 short name `git~1`). Such paths are never writable, whatever is granted: git refuses them too.
 */
export function isGitMetadata(path: string): boolean {
  return path.split('/').some((segment) => {
    let end = segment.length;
    while (end > 0 && (segment[end - 1] === '.' || segment[end - 1] === ' ')) end--;
    const name = segment.slice(0, end).toLowerCase();
    return name === '.git' || name === 'git~1';
  });
}

function quoteAll(paths: readonly string[]): string {
  const shown = paths
    .slice(0, 20)
    .map((p) => `"${p}"`)
    .join(', ');
  return paths.length > 20 ? `${shown} and ${paths.length - 20} more` : shown;
}

function refusalMessage(refused: readonly string[]): string {
  const meta = refused.filter(isGitMetadata);
  const grantable = refused.filter((p) => !isGitMetadata(p));
  const parts: string[] = [];
  if (grantable.length > 0) {
    const one = grantable.length === 1;
    parts.push(
      `${quoteAll(grantable)} ${one ? 'is a protected file' : 'are protected files'} (CI configuration, code owners, ` +
        `git attributes or submodules, credentials or local data) that this perimeter may not change without an ` +
        `explicit grant. Remove ${one ? 'it' : 'them'} from this change and retry, or ask the operator to grant ` +
        `${one ? 'this exact path' : 'these exact paths'}.`,
    );
  }
  if (meta.length > 0) {
    parts.push(
      `${quoteAll(meta)} ${meta.length === 1 ? 'is' : 'are'} inside git's own metadata, which can never be written; remove ${meta.length === 1 ? 'it' : 'them'} from this change.`,
    );
  }
  parts.push('Nothing was written: the whole change was refused.');
  return parts.join(' ');
}
