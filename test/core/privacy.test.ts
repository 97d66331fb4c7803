import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compilePrivacy,
  DEFAULT_PRIVACY,
  DEFAULT_PRIVACY_PATTERNS,
  PrivacyPatternList,
  withPrivacy,
} from '../../src/core/privacy.js';
import { compileGlobs } from '../../src/core/glob.js';
import { scopeOf, UNRESTRICTED, type Scope } from '../../src/core/scope.js';

const zones = DEFAULT_PRIVACY;

describe('isPrivate: built-in zones', () => {
  const hidden: string[] = [
    // env files
    '.env',
    'app/.env',
    'a/b/c/d/.env',
    '.env.local',
    '.env.production',
    'services/api/.env.development.local',
    '.env.example.local',
    '.envrc',
    'deploy/.envrc',
    'docker/app.env',
    'prod.env',
    // keys and certificates
    'certs/server.pem',
    'server.key',
    'config/master.key',
    'client.p12',
    'keys/store.pfx',
    'AuthKey_ABC123.p8',
    'putty.ppk',
    'android/release.jks',
    'android/release.keystore',
    'id_rsa',
    'home/.ssh/id_rsa',
    'id_rsa.pub',
    'id_dsa',
    'id_ecdsa',
    'id_ecdsa_sk',
    'id_ed25519',
    'keys/id_ed25519.pub',
    'id_rsa_backup',
    '.ssh/config',
    '.ssh/known_hosts',
    '.gnupg/pubring.kbx',
    // credential files
    '.npmrc',
    'packages/web/.npmrc',
    '.pypirc',
    '.netrc',
    '_netrc',
    '.pgpass',
    '.htpasswd',
    '.git-credentials',
    'credentials',
    'config/credentials.json',
    // issue 19: SPEC §4.7 promised `credentials*`, `.aws/` and `*.sqlite*`; these were served.
    'credentials.csv',
    'ops/credentials.csv.bak',
    'credentials.md',
    'docs/credentials-guide.md',
    'aws/credentials.ts',
    '.aws/credentials',
    'ops/.aws/config',
    '.aws/sso/cache/0123abcd.json',
    'home/.aws/cli/cache/x.json',
    '.aws',
    '.docker/config.json',
    '.kube/config',
    'secrets.yml',
    'k8s/secrets.yaml',
    'infra/terraform.tfstate',
    'infra/terraform.tfstate.backup',
    // local databases
    'app.db',
    'data/cache.sqlite',
    'data/cache.sqlite3',
    'app.db-wal',
    'app.db-shm',
    'app.db-journal',
    'state.sqlite-wal',
    'app.sqlite.bak',
    'data/app.sqlite-journal.old',
    // git metadata at any depth
    '.git',
    '.git/config',
    '.git/hooks/pre-commit',
    '.git/objects/ab/cdef',
    'vendor/lib/.git',
    'vendor/lib/.git/HEAD',
  ];
  const visible: string[] = [
    // env look-alikes and shared templates
    'env.txt',
    'environment.ts',
    'src/env.ts',
    'env/config.ts',
    '.envoy.yaml',
    'dotenv.md',
    'docs/.env-guide.md',
    '.env.example',
    '.env.sample',
    '.env.template',
    '.env.dist',
    'web/.env.local.example',
    'web/.env.production.sample',
    // keys look-alikes
    'keyboard.ts',
    'src/keys.ts',
    'monkey.txt',
    'certs/ca.crt',
    'certs/ca.cer',
    'pem.md',
    'docs/ssh-keys.md',
    'src/identity.ts',
    'ssh/README.md',
    // credential look-alikes
    'src/credentials/provider.ts',
    'docs/aws-credentials.md',
    'npmrc.md',
    'secrets.md',
    'src/secrets.ts',
    'docker/config.json',
    'aws/config.ts',
    '.awsrc.md',
    // databases look-alikes
    'src/db.ts',
    'src/db/index.ts',
    'database.md',
    'sqlite.md',
    'wal.ts',
    'journal.md',
    // git look-alikes
    '.gitignore',
    '.gitattributes',
    '.gitmodules',
    '.github/workflows/ci.yml',
    'src/git/index.ts',
    'dot.git/file',
    'x.git/file',
    // ordinary code
    'README.md',
    'src/index.ts',
    'package.json',
  ];

  it.each(hidden)('hides %s', (p) => expect(zones.isPrivate(p)).toBe(true));
  it.each(visible)('leaves %s visible', (p) => expect(zones.isPrivate(p)).toBe(false));
  it('never hides the root', () => {
    expect(zones.isPrivate('')).toBe(false);
    expect(zones.hidesDir('')).toBe(false);
  });

  it.each([
    '.ENV',
    'App/.Env',
    '.Env.Local',
    'ID_RSA',
    'Id_Ed25519.PUB',
    'SERVER.PEM',
    'Prod.DB',
    'x.SQLite3',
    '.GIT/config',
    'Vendor/.Git/HEAD',
    'Credentials.JSON',
    'SECRETS.YAML',
    '.NPMRC',
    '.AWS/Credentials',
    'APP.DB-WAL',
  ])('is case-insensitive: hides %s', (p) => expect(zones.isPrivate(p)).toBe(true));

  it('keeps the template exemption case-insensitive too, and only for the exact template suffixes', () => {
    expect(zones.isPrivate('.ENV.EXAMPLE')).toBe(false);
    expect(zones.isPrivate('.env.examples')).toBe(true);
    expect(zones.isPrivate('.env.example.bak')).toBe(true);
    expect(zones.isPrivate('.env.exampl')).toBe(true);
  });

  it.each(['.env.', '.env ', 'id_rsa.', 'prod.db ', 'secrets.yml.', '.git./config', '.env.example.'])(
    'judges the Windows spelling with trailing dots or spaces: hides %j',
    (p) => expect(zones.isPrivate(p)).toBe(true),
  );

  it('exempts templates inside a private directory from nothing', () => {
    expect(zones.isPrivate('.git/.env.example')).toBe(true);
    expect(zones.isPrivate('.ssh/.env.sample')).toBe(true);
  });
});

describe('hidesDir', () => {
  it.each([
    '.git',
    'a/.git',
    '.git/objects',
    '.git/refs/heads',
    '.GIT',
    '.ssh',
    'home/.ssh',
    '.gnupg',
    '.aws',
    'home/.aws/sso',
  ])('hides the whole directory %s', (d) => expect(zones.hidesDir(d)).toBe(true));
  it.each(['src', '.github', '.docker', 'data', 'credentials', '.env', 'certs', 'secrets'])(
    'keeps %s listable (it may hold visible files)',
    (d) => expect(zones.hidesDir(d)).toBe(false),
  );
});

describe('compilePrivacy extras', () => {
  it('adds operator patterns, case-insensitively, on top of every default', () => {
    const z = compilePrivacy({ patterns: ['data/**', '**/*.jsonl'] });
    expect(z.isPrivate('data/users.csv')).toBe(true);
    expect(z.isPrivate('DATA/users.csv')).toBe(true);
    expect(z.isPrivate('logs/a.JSONL')).toBe(true);
    expect(z.hidesDir('data')).toBe(true);
    expect(z.hidesDir('Data/2024')).toBe(true);
    expect(z.isPrivate('.env')).toBe(true);
    expect(z.patterns).toEqual(expect.arrayContaining([...DEFAULT_PRIVACY_PATTERNS, 'data/**', '**/*.jsonl']));
  });

  it('cannot remove a default: the defaults are always in force', () => {
    const z = compilePrivacy({ patterns: [] });
    for (const p of ['.env', 'id_rsa', '.git/config', 'app.db']) expect(z.isPrivate(p)).toBe(true);
    expect(z.patterns.slice(0, DEFAULT_PRIVACY_PATTERNS.length)).toEqual(DEFAULT_PRIVACY_PATTERNS);
  });

  it('lets an operator hide the env templates too (the exemption belongs to the built-in rule only)', () => {
    expect(compilePrivacy({ patterns: ['**/.env.example'] }).isPrivate('.env.example')).toBe(true);
    expect(compilePrivacy({ patterns: ['**/.env.*'] }).isPrivate('web/.env.sample')).toBe(true);
  });

  it('an extra "**" hides everything but the root', () => {
    const z = compilePrivacy({ patterns: ['**'] });
    expect(z.isPrivate('README.md')).toBe(true);
    expect(z.isPrivate('')).toBe(false);
  });

  it('validates extra patterns with the perimeter glob rules', () => {
    expect(PrivacyPatternList.safeParse(['data/**', '**/*.csv']).success).toBe(true);
    expect(PrivacyPatternList.safeParse(['/abs/**']).success).toBe(false);
    expect(PrivacyPatternList.safeParse(['a/../b']).success).toBe(false);
    expect(PrivacyPatternList.safeParse(['']).success).toBe(false);
  });
});

describe('withPrivacy', () => {
  const base = scopeOf({ read: ['**'], write: ['**'] });
  const scope = withPrivacy(base, zones);

  it('hides private files inside a read glob and refuses to write them', () => {
    expect(scope.canRead('.env')).toBe(false);
    expect(scope.canRead('src/index.ts')).toBe(true);
    expect(scope.canWrite('.env')).toBe(false);
    expect(scope.canWrite('src/index.ts')).toBe(true);
  });

  it('lists directories that may hold visible files, never a wholly private one', () => {
    expect(scope.canList('')).toBe(true);
    expect(scope.canList('src')).toBe(true);
    expect(scope.canList('.docker')).toBe(true);
    expect(scope.canList('.aws')).toBe(false);
    expect(scope.canList('.git')).toBe(false);
    expect(scope.canList('vendor/x/.git/refs')).toBe(false);
    expect(scope.canList('.ssh')).toBe(false);
  });

  it('never widens the base scope', () => {
    const narrow = withPrivacy(scopeOf({ read: ['docs/**'], write: [] }), zones);
    expect(narrow.canRead('src/index.ts')).toBe(false);
    expect(narrow.canList('src')).toBe(false);
    expect(narrow.canWrite('docs/a.md')).toBe(false);
  });

  it('opens a private path for writing only through an explicit grant, and never for reading', () => {
    const granted = withPrivacy(base, zones, { writeGrant: (p) => p === 'web/.npmrc' });
    expect(granted.canWrite('web/.npmrc')).toBe(true);
    expect(granted.canRead('web/.npmrc')).toBe(false);
    expect(granted.canWrite('.npmrc')).toBe(false);
    const grantedButNotWritable = withPrivacy(scopeOf({ read: ['**'], write: ['src/**'] }), zones, {
      writeGrant: () => true,
    });
    expect(grantedButNotWritable.canWrite('web/.npmrc')).toBe(false);
  });

  it('applies to the unrestricted scope too (the lead decides which surfaces get it)', () => {
    expect(withPrivacy(UNRESTRICTED, zones).canRead('.git/config')).toBe(false);
  });
});

// Segments chosen to hit zones, look-alikes and case variants often.
const SEGMENTS = [
  'src',
  'docs',
  'a',
  'B',
  '.git',
  '.GIT',
  '.env',
  '.Env',
  '.env.local',
  '.env.example',
  '.envrc',
  'env.txt',
  'id_rsa',
  'ID_RSA.pub',
  'x.pem',
  'k.KEY',
  'app.db',
  'app.db-wal',
  '.ssh',
  '.aws',
  'credentials',
  'secrets.yml',
  'index.ts',
  'README.md',
  '.github',
  'data',
  'x.sqlite3',
  '.npmrc',
  '.git.',
  'file ',
];
const randomCase = (s: string, mask: number): string =>
  [...s].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
const globArb = fc
  .array(fc.oneof(fc.constantFrom('**', '*', '*.ts', '*.md', '.*'), fc.constantFrom(...SEGMENTS)), {
    minLength: 1,
    maxLength: 4,
  })
  .map((s) => s.join('/'));
const scopeArb: fc.Arbitrary<Scope> = fc
  .record({ read: fc.array(globArb, { maxLength: 3 }), write: fc.array(globArb, { maxLength: 3 }) })
  .map((p) => scopeOf(p));

// The obvious, slow reading of the patterns: every glob (and every `X/**` stem) against the whole folded path.
function referenceZones(extra: readonly string[]): { file(p: string): boolean; dir(d: string): boolean } {
  const lower = (g: readonly string[]) => compileGlobs(g.map((x) => x.toLowerCase()));
  const all = [...DEFAULT_PRIVACY_PATTERNS, ...extra];
  const plain = lower([...DEFAULT_PRIVACY_PATTERNS.filter((p) => p !== '**/.env.*'), ...extra]);
  const env = lower(['**/.env.*']);
  const exempt = lower(['**/.env.{example,sample,template,dist}', '**/.env.*.{example,sample,template,dist}']);
  const dirs = all.filter((p) => p.endsWith('/**'));
  const whole = lower(dirs);
  const stems = lower(dirs.map((p) => p.slice(0, -3)));
  const trim = (p: string) =>
    p
      .split('/')
      .map((s) => s.replace(/[. ]+$/, '') || s)
      .join('/');
  const one = (p: string) => plain.matches(p) || stems.matches(p) || (env.matches(p) && !exempt.matches(p));
  return {
    file: (p) => p !== '' && (one(p.toLowerCase()) || one(trim(p.toLowerCase()))),
    dir: (d) => d !== '' && [d.toLowerCase(), trim(d.toLowerCase())].some((x) => whole.matches(x) || stems.matches(x)),
  };
}

describe('properties', () => {
  it('the grouped matcher answers exactly like matching every glob against the whole path', () => {
    const extraArb = fc.array(
      fc.oneof(
        globArb,
        fc.constantFrom(
          '**/*.csv',
          'data/**',
          '**/exports/**',
          '**/.aws/*',
          '**/x/{a,b}.md',
          '**/*.{jsonl,ndjson}',
          '**',
        ),
      ),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(pathArb, extraArb, (path, extra) => {
        const z = compilePrivacy({ patterns: extra });
        const ref = referenceZones(extra);
        expect(z.isPrivate(path)).toBe(ref.file(path));
        expect(z.hidesDir(path)).toBe(ref.dir(path));
      }),
      { numRuns: 250 },
    );
    const ref = referenceZones([]);
    for (const p of SEGMENTS.flatMap((a) => SEGMENTS.map((b) => `${a}/${b}`))) {
      expect(DEFAULT_PRIVACY.isPrivate(p)).toBe(ref.file(p));
      expect(DEFAULT_PRIVACY.hidesDir(p)).toBe(ref.dir(p));
    }
  });

  it('withPrivacy never allows what the base scope refuses, and never reads or lists into a private zone', () => {
    fc.assert(
      fc.property(scopeArb, pathArb, fc.array(globArb, { maxLength: 2 }), (base, path, extra) => {
        const z = compilePrivacy({ patterns: extra });
        const s = withPrivacy(base, z);
        if (s.canRead(path)) expect(base.canRead(path) && !z.isPrivate(path)).toBe(true);
        if (s.canWrite(path)) expect(base.canWrite(path) && !z.isPrivate(path)).toBe(true);
        if (s.canList(path)) expect(base.canList(path) && !z.hidesDir(path)).toBe(true);
        if (z.isPrivate(path)) expect(s.canRead(path)).toBe(false);
      }),
      { numRuns: 600 },
    );
  });

  it('a directory that is not listable because of privacy holds no readable file', () => {
    fc.assert(
      fc.property(pathArb, pathArb, fc.array(globArb, { maxLength: 2 }), (dir, rest, extra) => {
        const z = compilePrivacy({ patterns: extra });
        const s = withPrivacy(UNRESTRICTED, z);
        if (!s.canList(dir)) expect(s.canRead(`${dir}/${rest}`)).toBe(false);
      }),
      { numRuns: 600 },
    );
  });

  it('is case-insensitive: any casing of a path has the same verdict', () => {
    fc.assert(
      fc.property(pathArb, fc.integer({ min: 0, max: 2 ** 30 - 1 }), (path, mask) => {
        const variant = randomCase(path, mask);
        expect(zones.isPrivate(variant)).toBe(zones.isPrivate(path));
        expect(zones.hidesDir(variant)).toBe(zones.hidesDir(path));
      }),
      { numRuns: 2000 },
    );
  });

  it('extras only ever add: anything private by default stays private', () => {
    fc.assert(
      fc.property(pathArb, fc.array(globArb, { maxLength: 3 }), (path, extra) => {
        const z = compilePrivacy({ patterns: extra });
        if (zones.isPrivate(path)) expect(z.isPrivate(path)).toBe(true);
        if (zones.hidesDir(path)) expect(z.hidesDir(path)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('anything below .git, at any depth and in any case, is private', () => {
    fc.assert(
      fc.property(pathArb, pathArb, fc.integer({ min: 0, max: 15 }), (before, after, mask) => {
        const git = randomCase('.git', mask);
        expect(zones.isPrivate(`${before}/${git}/${after}`)).toBe(true);
        expect(zones.isPrivate(`${git}/${after}`)).toBe(true);
      }),
    );
  });
});
