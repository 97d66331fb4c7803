import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePrivacy, DEFAULT_PRIVACY_PATTERNS, withPrivacy, type PrivacyZones } from '../../src/core/privacy.js';
import {
  AllowProtectedList,
  compileProtected,
  DEFAULT_PROTECTED_PATTERNS,
  isGitMetadata,
  validateProtectedGrant,
} from '../../src/core/protected.js';
import { scopeOf } from '../../src/core/scope.js';

const policy = compileProtected();

describe('isProtected', () => {
  const protectedPaths = [
    '.github/workflows/ci.yml',
    '.github/workflows/nested/deploy.yaml',
    '.github/actions/setup/action.yml',
    'CODEOWNERS',
    '.github/CODEOWNERS',
    'docs/CODEOWNERS',
    '.gitmodules',
    'vendor/lib/.gitmodules',
    '.gitattributes',
    'src/.gitattributes',
    '.gitlab-ci.yml',
    '.circleci/config.yml',
    '.buildkite/pipeline.yml',
    'azure-pipelines.yml',
    '.travis.yml',
    'Jenkinsfile',
    // privacy zones are protected too
    '.env',
    'web/.env.production',
    'id_ed25519',
    'app.db',
    '.npmrc',
    '.git/config',
    '.git/hooks/pre-commit',
  ];
  const free = [
    'src/index.ts',
    '.github/FUNDING.yml',
    '.github/ISSUE_TEMPLATE/bug.md',
    '.github/pull_request_template.md',
    'src/CODEOWNERS',
    'lib/CODEOWNERS.md',
    'docs/workflows/ci.yml',
    'workflows/ci.yml',
    'src/.github/workflows/ci.yml',
    '.gitignore',
    '.env.example',
    'README.md',
    'jenkinsfile.md',
  ];
  it.each(protectedPaths)('protects %s', (p) => expect(policy.isProtected(p)).toBe(true));
  it.each(free)('does not protect %s', (p) => expect(policy.isProtected(p)).toBe(false));
  it.each([
    '.GitHub/Workflows/ci.yml',
    'codeowners',
    '.GITHUB/codeowners',
    'Docs/CodeOwners',
    '.GitModules',
    'JENKINSFILE',
    '.ENV',
  ])('matches protected paths case-insensitively: %s', (p) => expect(policy.isProtected(p)).toBe(true));
  it('protects every extra privacy zone of the perimeter', () => {
    const zones = compilePrivacy({ patterns: ['data/**'] });
    expect(compileProtected({ zones }).isProtected('data/users.csv')).toBe(true);
    expect(policy.isProtected('data/users.csv')).toBe(false);
  });
  it('accepts extra server-wide protected patterns', () => {
    expect(compileProtected({ patterns: ['Makefile'] }).isProtected('makefile')).toBe(true);
  });
  it('keeps its defaults and the privacy defaults as published lists', () => {
    expect(DEFAULT_PROTECTED_PATTERNS).toContain('.github/workflows/**');
    expect(DEFAULT_PRIVACY_PATTERNS).toContain('**/.git/**');
  });
});

describe('issue 9 item 11: files that run, grant or rewrite', () => {
  const policy9 = compileProtected();
  it.each([
    '.lfsconfig',
    '.github/dependabot.yml',
    '.github/dependabot.yaml',
    '.github/settings.yml',
    '.github/renovate.json',
    'renovate.json',
    '.renovaterc.json',
    '.husky/pre-commit',
    '.husky/_/husky.sh',
    '.githooks/pre-push',
    '.gitconfig',
    'tools/.gitconfig',
    '.mailmap',
    '.git-blame-ignore-revs',
    '.pre-commit-config.yaml',
    'lefthook.yml',
    '.lefthook.yml',
    'lefthook-local.yml',
    '.overcommit.yml',
    '.devcontainer/devcontainer.json',
    '.devcontainer.json',
    '.gitpod.yml',
    '.vscode/tasks.json',
    '.vscode/settings.json',
    '.gitlab-ci.yml',
    '.gitlab/ci/build.yml',
    '.gitlab/CODEOWNERS',
    '.github/CODEOWNERS',
    'docs/CODEOWNERS',
    '.circleci/config.yml',
    'Jenkinsfile',
    'ci/Jenkinsfile',
    '.drone.yml',
    '.woodpecker/build.yml',
    'bitbucket-pipelines.yml',
    'appveyor.yml',
    '.appveyor.yml',
    '.gitea/workflows/ci.yml',
    '.forgejo/workflows/ci.yml',
    '.cirrus.yml',
    'buildspec.yml',
    'cloudbuild.yaml',
    'azure-pipelines.yaml',
    '.Husky/Pre-Commit',
    '.LFSCONFIG',
  ])('protects %s', (p) => expect(policy9.isProtected(p)).toBe(true));

  it.each([
    '.github/ISSUE_TEMPLATE/bug.md',
    '.github/pull_request_template.md',
    'docs/husky.md',
    'src/gitconfig.ts',
    'mailmap.txt',
    '.vscode/extensions.json',
    'my.lfsconfig.md',
  ])('leaves ordinary files writable: %s', (p) => expect(policy9.isProtected(p)).toBe(false));

  it('an explicit grant still lifts each one', () => {
    const granted = compileProtected({ grants: ['.husky/pre-commit', '.github/dependabot.yml'] });
    expect(granted.check(['.husky/pre-commit', '.github/dependabot.yml'])).toEqual({ ok: true });
    expect(granted.check(['.husky/pre-push']).ok).toBe(false);
  });
});

// The check a binding's write guard runs (compileProtected(...).check), as one call.
const protectedWriteCheck = (paths: readonly string[], grants: readonly string[], zones?: PrivacyZones) =>
  compileProtected(zones === undefined ? { grants } : { grants, zones }).check(paths);

describe('protected write check', () => {
  it('passes ordinary writes', () => {
    expect(protectedWriteCheck(['src/a.ts', 'README.md'], [])).toEqual({ ok: true });
    expect(protectedWriteCheck([], [])).toEqual({ ok: true });
  });

  it('refuses the whole write when any path is protected, naming only those paths', () => {
    const r = protectedWriteCheck(['src/a.ts', '.github/workflows/ci.yml', 'CODEOWNERS'], []);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('protected_path');
    expect(r.paths).toEqual(['.github/workflows/ci.yml', 'CODEOWNERS']);
    expect(r.message).toContain('".github/workflows/ci.yml", "CODEOWNERS"');
    expect(r.message).not.toContain('src/a.ts');
    expect(r.message).toMatch(/Nothing was written/);
    expect(r.message).toMatch(/ask the operator/);
  });

  it('never repeats a policy pattern in its message', () => {
    const r = protectedWriteCheck(['.github/workflows/ci.yml', '.env', 'x/.git/config', 'app.db'], []);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const g of [...DEFAULT_PROTECTED_PATTERNS, ...DEFAULT_PRIVACY_PATTERNS]) {
      if (g.includes('*')) expect(r.message).not.toContain(g);
    }
    expect(r.message).not.toMatch(/\*\*/);
    expect(r.message).not.toContain('allow_protected');
  });

  it('lifts protection for exactly granted paths and explicit globs', () => {
    expect(protectedWriteCheck(['.github/workflows/ci.yml'], ['.github/workflows/ci.yml'])).toEqual({ ok: true });
    expect(
      protectedWriteCheck(['.github/workflows/a.yml', '.github/workflows/b.yml'], ['.github/workflows/*.yml']),
    ).toEqual({ ok: true });
    expect(protectedWriteCheck(['web/.npmrc'], ['web/.npmrc'])).toEqual({ ok: true });
    const partial = protectedWriteCheck(['.github/workflows/ci.yml', 'CODEOWNERS'], ['.github/workflows/ci.yml']);
    expect(partial).toMatchObject({ ok: false, paths: ['CODEOWNERS'] });
  });

  it('matches grants case-sensitively: the agent must use the granted spelling', () => {
    expect(protectedWriteCheck(['.GitHub/workflows/ci.yml'], ['.github/workflows/ci.yml'])).toMatchObject({
      ok: false,
    });
  });

  it('never lets a grant open git metadata', () => {
    const r = protectedWriteCheck(['.git/hooks/pre-commit'], ['.git/hooks/pre-commit', '.git/**']);
    expect(r).toMatchObject({ ok: false, paths: ['.git/hooks/pre-commit'] });
    if (r.ok) return;
    expect(r.message).toMatch(/can never be written/);
    expect(r.message).not.toMatch(/ask the operator/);
  });

  it('deduplicates and uses the singular for one path', () => {
    const r = protectedWriteCheck(['CODEOWNERS', 'CODEOWNERS'], []);
    expect(r).toMatchObject({ ok: false, paths: ['CODEOWNERS'] });
    if (!r.ok) expect(r.message).toMatch(/"CODEOWNERS" is a protected file/);
  });

  it('caps a long list of paths in the message', () => {
    const paths = Array.from({ length: 30 }, (_, i) => `.github/workflows/w${i}.yml`);
    const r = protectedWriteCheck(paths, []);
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) {
      expect(r.paths).toHaveLength(30);
      expect(r.message).toContain('and 10 more');
    }
  });

  it('uses the perimeter zones when given', () => {
    const zones = compilePrivacy({ patterns: ['exports/**'] });
    expect(protectedWriteCheck(['exports/a.csv'], [], zones)).toMatchObject({ ok: false });
    expect(protectedWriteCheck(['exports/a.csv'], [])).toEqual({ ok: true });
  });
});

describe('isGitMetadata', () => {
  it.each([
    '.git',
    '.git/config',
    'a/.git/HEAD',
    '.GIT/config',
    '.Git',
    '.git./x',
    '.git /x',
    'GIT~1/config',
    'a/git~1',
  ])('recognises %j', (p) => expect(isGitMetadata(p)).toBe(true));
  it.each(['.gitignore', '.github/x', 'git/x', 'a.git/x', '.gitmodules', 'src/git.ts'])('ignores %j', (p) =>
    expect(isGitMetadata(p)).toBe(false),
  );
});

describe('grants validation', () => {
  it.each(['.github/workflows/ci.yml', '.github/workflows/*.yml', 'CODEOWNERS', '**/.npmrc', 'web/**'])(
    'accepts %s',
    (g) => expect(validateProtectedGrant(g).ok).toBe(true),
  );
  it.each(['**', '*', '**/*', '*/**', '', '/CODEOWNERS', '../x', 'a//b'])('rejects %j', (g) =>
    expect(validateProtectedGrant(g).ok).toBe(false),
  );
  it('has a zod schema for the perimeter field', () => {
    expect(AllowProtectedList.safeParse(['CODEOWNERS']).success).toBe(true);
    expect(AllowProtectedList.safeParse(['**']).success).toBe(false);
  });
});

describe('with withPrivacy', () => {
  it('a granted private path becomes writable only inside write', () => {
    const zones = compilePrivacy();
    const prot = compileProtected({ grants: ['web/.npmrc'], zones });
    const scope = withPrivacy(scopeOf({ read: ['**'], write: ['web/**'] }), zones, { writeGrant: prot.isGranted });
    expect(scope.canWrite('web/.npmrc')).toBe(true);
    expect(scope.canRead('web/.npmrc')).toBe(false);
    expect(scope.canWrite('.npmrc')).toBe(false);
  });
});

const SEGMENTS = [
  '.github',
  '.GitHub',
  'workflows',
  'actions',
  'CODEOWNERS',
  'docs',
  'src',
  '.git',
  '.gitmodules',
  '.env',
  'a.ts',
  'x.yml',
];
const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));

describe('properties', () => {
  it('refuses exactly the protected, ungranted paths, and only says ok when none remain', () => {
    fc.assert(
      fc.property(fc.array(pathArb, { maxLength: 6 }), fc.array(pathArb, { maxLength: 3 }), (paths, grants) => {
        const p = compileProtected({ grants });
        const r = p.check(paths);
        const expected = [...new Set(paths.filter((x) => p.isProtected(x) && !p.isGranted(x)))];
        if (r.ok) expect(expected).toEqual([]);
        else {
          expect(r.paths).toEqual(expected);
          for (const x of r.paths) expect(r.message).toContain(`"${x}"`);
        }
      }),
    );
  });

  it('a grant never opens git metadata, and never applies to an unprotected path', () => {
    fc.assert(
      fc.property(pathArb, fc.array(pathArb, { maxLength: 3 }), (path, grants) => {
        const p = compileProtected({ grants });
        if (isGitMetadata(path)) expect(p.isGranted(path)).toBe(false);
        if (!p.isProtected(path)) expect(p.isGranted(path)).toBe(false);
      }),
    );
  });
});
