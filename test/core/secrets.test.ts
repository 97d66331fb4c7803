import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  scanForSecrets,
  secretsRefusal,
  SECRET_KIND_LABELS,
  shannonEntropy,
  type SecretKind,
} from '../../src/core/secrets.js';

// Fake credentials are assembled at run time so this file never holds a literal token (push protection would
// rightly refuse it). The generator is deterministic: the same "random" strings every run.
function rand(
  n: number,
  seed: number,
  alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
): string {
  // mulberry32
  let a = seed >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return out;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const HEX = '0123456789abcdef';
const BEGIN = '-----BEGIN ';
const KEY_END = ' PRIVATE KEY-----';

const scan1 = (content: string, path = 'src/config.ts') => scanForSecrets([{ path, content }]);
const kinds = (content: string) => scan1(content).map((f) => f.kind);

const positives: [string, string, SecretKind][] = [
  ['GitHub classic PAT', `const t = "${'ghp_'}${rand(36, 1)}";`, 'github_token'],
  ['GitHub OAuth token', `${'gho_'}${rand(36, 2)}`, 'github_token'],
  ['GitHub user-to-server', `x ${'ghu_'}${rand(36, 3)} y`, 'github_token'],
  ['GitHub server-to-server', `${'ghs_'}${rand(36, 4)}`, 'github_token'],
  ['GitHub refresh token', `${'ghr_'}${rand(76, 5)}`, 'github_token'],
  ['GitHub fine-grained PAT', `${'github_pat_'}${rand(22, 6)}_${rand(59, 7)}`, 'github_token'],
  ['AWS access key id', `aws_access_key_id = ${'AKIA'}${rand(16, 8, UPPER)}`, 'aws_access_key_id'],
  ['AWS temporary key id', `"${'ASIA'}${rand(16, 9, UPPER)}"`, 'aws_access_key_id'],
  ['AWS secret in env', `AWS_SECRET_ACCESS_KEY=${rand(40, 10, B64)}`, 'aws_secret_access_key'],
  ['AWS secret in YAML', `aws_secret_access_key: "${rand(40, 11, B64)}"`, 'aws_secret_access_key'],
  ['AWS secret camelCase', `awsSecretAccessKey: '${rand(40, 12, B64)}',`, 'aws_secret_access_key'],
  [
    'RSA key block',
    `${BEGIN}RSA${KEY_END}\nMIIEowIBAAKCAQEA${rand(48, 13, B64)}\n-----END RSA PRIVATE KEY-----`,
    'private_key',
  ],
  ['PKCS8 key block', `${BEGIN.trimEnd()}${KEY_END}\r\nMIIEvQIBADANBgkq${rand(48, 14, B64)}`, 'private_key'],
  ['OpenSSH key block', `${BEGIN}OPENSSH${KEY_END}\nb3BlbnNzaC1rZXktdjEAAAAA${rand(40, 15, B64)}`, 'private_key'],
  ['EC key in JSON', `{"private_key": "${BEGIN}EC${KEY_END}\\nMHcCAQEEI${rand(40, 16, B64)}\\n"}`, 'private_key'],
  ['encrypted legacy key', `${BEGIN}RSA${KEY_END}\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB`, 'private_key'],
  ['PGP key block', `${BEGIN}PGP PRIVATE KEY BLOCK-----\n\nlQdGBF${rand(40, 17, B64)}`, 'private_key'],
  [
    'Slack bot token',
    `SLACK=${'xoxb-'}${rand(12, 18, HEX.slice(0, 10))}-${rand(13, 19, HEX.slice(0, 10))}-${rand(24, 20)}`,
    'slack_token',
  ],
  [
    'Slack webhook',
    `url: https://hooks.slack.com/services/T${rand(8, 21, UPPER)}/B${rand(8, 22, UPPER)}/${rand(24, 23)}`,
    'slack_webhook',
  ],
  ['Stripe live secret', `stripe(${JSON.stringify('sk_live_' + rand(24, 24))})`, 'stripe_live_key'],
  ['Stripe live restricted', `${'rk_live_'}${rand(99, 25)}`, 'stripe_live_key'],
  ['Google API key', `key=${'AIza'}${rand(35, 26)}`, 'google_api_key'],
  ['npm token', `//registry.npmjs.org/:_authToken=${'npm_'}${rand(36, 27)}`, 'npm_token'],
  ['PyPI token', `password = ${'pypi-AgEIcHlwaS5vcmc'}${rand(60, 28, B64.slice(0, 62))}`, 'pypi_token'],
  ['Anthropic key', `${'sk-ant-api03-'}${rand(80, 29)}`, 'anthropic_key'],
  ['OpenAI project key', `${'sk-proj-'}${rand(60, 30)}`, 'openai_key'],
  ['OpenAI legacy key', `${'sk-'}${rand(20, 31)}${'T3BlbkFJ'}${rand(20, 32)}`, 'openai_key'],
  ['Bearer JWT', `Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.${rand(40, 33)}.${rand(43, 34)}`, 'bearer_token'],
  ['bearer opaque', `headers["Authorization"] = "bearer ${rand(32, 35)}"`, 'bearer_token'],
  ['password in URL', `DATABASE_URL=postgres://app:${rand(20, 36)}@db.internal:5432/app`, 'url_credentials'],
  ['password assignment', `DB_PASSWORD=${rand(24, 37)}`, 'generic_secret'],
  ['secret in YAML', `client_secret: "${rand(32, 38)}"`, 'generic_secret'],
  ['token in JSON', `{"api_token": "${rand(40, 39, HEX)}"}`, 'generic_secret'],
  ['api key in TS', `const apiKey = '${rand(32, 40)}';`, 'generic_secret'],
  ['API-KEY header style', `X-API-KEY: ${rand(30, 41)}`, 'generic_secret'],
  ['passphrase with symbols', `passphrase := "${rand(22, 42, 'abcdXYZ019!#&*@^')}"`, 'generic_secret'],
  [
    'JWT assigned to a token name',
    `refresh_token = "eyJhbGciOiJIUzI1NiJ9.${rand(30, 43)}.${rand(43, 44)}"`,
    'generic_secret',
  ],
  ['Python kwarg', `connect(password="${rand(26, 45)}")`, 'generic_secret'],
  ['access key arrow', `'access_key' => '${rand(32, 46)}',`, 'generic_secret'],
];

describe('scanForSecrets: positives', () => {
  it.each(positives)('%s', (_name, content, kind) => {
    expect(kinds(content)).toContain(kind);
  });

  it('reports path and 1-based line, and never the secret', () => {
    const token = `${'ghp_'}${rand(36, 50)}`;
    const content = `line one\nline two\n  const t = "${token}";\n`;
    const found = scanForSecrets([{ path: 'a/b.ts', content }]);
    expect(found).toEqual([{ path: 'a/b.ts', line: 3, kind: 'github_token', hint: 'ghp_' }]);
    expect(JSON.stringify(found)).not.toContain(token.slice(4, 12));
  });

  it('gives no hint for kinds without a public prefix', () => {
    for (const content of [`DB_PASSWORD=${rand(24, 51)}`, `${BEGIN}RSA${KEY_END}\n${rand(64, 52, B64)}`]) {
      const [f] = scan1(content);
      expect(f).toBeDefined();
      expect(f?.hint).toBeUndefined();
    }
  });

  it('reports the line of the key header for a multi-line block', () => {
    const content = `a\nb\n${BEGIN}RSA${KEY_END}\n${rand(64, 53, B64)}\n${rand(64, 54, B64)}\n`;
    expect(scan1(content)).toEqual([{ path: 'src/config.ts', line: 3, kind: 'private_key' }]);
  });

  it('prefers the specific kind over a generic assignment of the same value', () => {
    const content = `GITHUB_TOKEN=${'ghp_'}${rand(36, 55)}\nAWS_SECRET_ACCESS_KEY="${rand(40, 56, B64)}"`;
    expect(kinds(content)).toEqual(['github_token', 'aws_secret_access_key']);
  });

  it('finds several secrets, across files, sorted by path and line', () => {
    const found = scanForSecrets([
      { path: 'z.env', content: `A=1\nSECRET_KEY=${rand(30, 57)}` },
      { path: 'a.ts', content: `x\ny\n${'AIza'}${rand(35, 58)}\n${'ghp_'}${rand(36, 59)}` },
    ]);
    expect(found.map((f) => [f.path, f.line, f.kind])).toEqual([
      ['a.ts', 3, 'google_api_key'],
      ['a.ts', 4, 'github_token'],
      ['z.env', 2, 'generic_secret'],
    ]);
  });

  it('reports one finding per line and kind', () => {
    const t = (seed: number) => `${'ghp_'}${rand(36, seed)}`;
    expect(scan1(`${t(1)} ${t(2)} ${t(3)}`)).toHaveLength(1);
  });
});

const negatives: [string, string][] = [
  ['env reference (JS)', 'const token = process.env.GITHUB_TOKEN;'],
  ['env reference (Python)', 'password = os.environ["DB_PASSWORD_FOR_PRODUCTION"]'],
  ['getenv call', 'secret_key = os.getenv("DJANGO_SECRET_KEY_VALUE_2024")'],
  ['shell interpolation', 'API_KEY=${PRODUCTION_API_KEY_FROM_VAULT}'],
  ['shell command', 'TOKEN=$(vault read -field=token secret/ci)'],
  ['shell variable', 'password: $DATABASE_PASSWORD_PRODUCTION_1'],
  ['template', 'api_key: "{{ .Values.apiKeyFromSecretStore }}"'],
  ['angle placeholder', 'GITHUB_TOKEN=<your-github-token-goes-here>'],
  ['changeme', 'password = "changeme-changeme-changeme"'],
  ['xxxx', 'api_key = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'],
  ['stars', 'password: "********************"'],
  ['your-', 'SECRET=your-secret-value-1234567890'],
  ['example in value', 'token = "example-token-abc123def456ghi789"'],
  ['test value', 'password = "Test1234Test1234Test1234"'],
  ['placeholder GitHub token', `GITHUB_TOKEN=${'ghp_'}${'x'.repeat(36)}`],
  ['low entropy GitHub-shaped', `${'ghp_'}${'aA1'.repeat(12)}`],
  ['AWS documented example id', `${'AKIA'}IOSFODNN7EXAMPLE`],
  ['AWS documented example secret', `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLE'}KEY`],
  ['Stripe test key', `${'sk_test_'}${rand(24, 60)}`],
  ['bare JWT fixture', `const fixture = "eyJhbGciOiJIUzI1NiJ9.${rand(30, 61)}.${rand(43, 62)}";`],
  ['key header mention', `if (pem.startsWith('${BEGIN}RSA${KEY_END}')) {`],
  ['key header in prose', `The file starts with ${BEGIN}OPENSSH${KEY_END} followed by base64.`],
  ['public key block', `-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A${rand(40, 63, B64)}`],
  ['certificate', `-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE${rand(40, 64, B64)}`],
  ['type annotation', 'password: string;'],
  ['zod schema', 'apiKey: z.string().min(32).regex(/^[A-Za-z0-9]+$/),'],
  ['token URL', 'token_url = "https://oauth2.googleapis.com/token"'],
  ['token endpoint', 'TOKEN_ENDPOINT: https://login.example.com/oauth2/v2.0/token'],
  ['secret name', 'SECRET_NAME=prod-database-credentials-2024'],
  ['password file path', 'password_file = "/run/secrets/db_password_2024"'],
  ['relative key path', 'private_key = "./keys/deploy_key_2024_rsa.pem"'],
  ['tokenizer call', 'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")'],
  ['token count', 'const tokenCount = countTokens(messages, model2024);'],
  ['comparison against a call', 'if (token === computeExpectedToken(userId1234)) {'],
  ['URL without password', 'url = "https://user@example.com/repo.git"'],
  ['URL with placeholder password', 'DATABASE_URL=postgres://postgres:postgres@localhost:5432/app'],
  ['URL with interpolated password', 'DATABASE_URL=postgres://app:${DB_PASSWORD_PRODUCTION}@db/app'],
  ['bearer with variable', 'Authorization: `Bearer ${accessTokenFromTheSession}`'],
  ['bearer placeholder', 'Authorization: Bearer <access-token-from-login>'],
  ['hex commit sha as ref', 'const ref = "3f786850e387550fdab836ed7e6dc881de23001b";'],
  ['lorem', 'description = "the password policy requires twenty characters"'],
  ['npm env name', `${'npm_'}configRegistryUrlForThePackageManagerXY=1`],
  ['short password', 'password = "hunter2"'],
  ['dotted config reference', 'secret: settings.AUTH.CLIENT_SECRET_VALUE'],
  ['detector source', 'const RE = /gh[pousr]_[A-Za-z0-9]{36,251}/g;'],
];

describe('scanForSecrets: negatives', () => {
  it.each(negatives)('%s', (_name, content) => {
    expect(scan1(content)).toEqual([]);
  });
});

describe('secretsRefusal', () => {
  it('names paths, lines and kinds, never the value, and says what to do', () => {
    const token = `${'ghp_'}${rand(36, 70)}`;
    const found = scanForSecrets([
      { path: 'ci/deploy.sh', content: `export GH=${token}\nDB_PASSWORD=${rand(24, 71)}` },
    ]);
    const msg = secretsRefusal(found);
    expect(msg).toContain('"ci/deploy.sh" line 1 (GitHub token, starts "ghp_")');
    expect(msg).toContain(`"ci/deploy.sh" line 2 (${SECRET_KIND_LABELS.generic_secret})`);
    expect(msg).not.toContain(token.slice(4));
    expect(msg).toMatch(/Nothing was written/);
    expect(msg).toMatch(/environment variable/);
  });

  it('caps the list', () => {
    const content = Array.from({ length: 25 }, (_, i) => `K${i}_SECRET=${rand(30, 100 + i)}`).join('\n');
    const found = scan1(content);
    expect(found).toHaveLength(25);
    expect(secretsRefusal(found)).toContain('and 5 more');
  });
});

describe('shannonEntropy', () => {
  it('is 0 for empty and uniform strings and log2(n) for n distinct symbols', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('ab')).toBeCloseTo(1);
    expect(shannonEntropy('abcdefgh')).toBeCloseTo(3);
  });
  it('counts code points, not UTF-16 units', () => {
    expect(shannonEntropy('😀😀')).toBe(0);
  });
});

describe('linear time on adversarial input', () => {
  const MB = 1 << 20;
  const lines: [string, string][] = [
    ['one long word', 'a'.repeat(MB)],
    ['long base64 run', rand(MB, 1, B64)],
    ['repeated GitHub prefix', 'ghp_'.repeat(MB / 4)],
    ['GitHub prefix then a huge token', `ghp_${'a1'.repeat(MB / 2)}`],
    ['repeated keywords', 'password'.repeat(MB / 8)],
    ['keyword then spaces', `password${' '.repeat(MB)}x`],
    ['keywords with tails', 'tokentokentoken_'.repeat(MB / 16)],
    ['keyword assignment then a huge value', `password=${'aB3'.repeat(MB / 3)}`],
    ['many assignments', 'token=ab;'.repeat(MB / 10)],
    ['key headers without end', `${BEGIN}${'A '.repeat(MB / 2)}`],
    ['repeated key headers', `${BEGIN}RSA PRIVATE KEY`.repeat(MB / 28)],
    ['repeated bearer', 'Bearer '.repeat(MB / 7)],
    ['URL-ish', 'a://'.repeat(MB / 4)],
    ['URL user then colons', `https://${'u'.repeat(MB / 2)}:${'p'.repeat(MB / 2)}`],
    ['colon soup', 'x://a:b'.repeat(MB / 7)],
    ['AKIA soup', 'AKIA'.repeat(MB / 4)],
    ['slack prefix soup', 'xoxb-'.repeat(MB / 5)],
    ['sk- soup', 'sk-ant-'.repeat(MB / 7)],
    ['spaces and tabs', ' \t'.repeat(MB / 2)],
    ['quotes and equals', `"'=:`.repeat(MB / 4)],
  ];
  // Each takes tens of milliseconds on an idle machine. The bound is loose on purpose (CI boxes are shared): a
  // backtracking blowup on 1 MB takes minutes, not seconds, so 5 s still separates linear from not.
  it.each(lines)('%s (1 MB) scans in linear time', (_name, line) => {
    const t = performance.now();
    scan1(line);
    expect(performance.now() - t).toBeLessThan(5000);
  });

  it('scales linearly: 4x the input costs far less than 16x the time', () => {
    const unit = `password=${'aB3'.repeat(1000)} ghp_${'x1'.repeat(500)} sk-ant-${'-'.repeat(100)} Bearer `;
    const time = (n: number) => {
      const input = unit.repeat(n);
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        scan1(input);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    time(20);
    const small = time(60);
    const large = time(240);
    expect(large / Math.max(small, 1)).toBeLessThan(12);
  });
});

describe('properties', () => {
  it('never throws and never reports a line outside the content', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (content) => {
        const lineCount = content.split('\n').length;
        for (const f of scan1(content)) {
          expect(f.line).toBeGreaterThanOrEqual(1);
          expect(f.line).toBeLessThanOrEqual(lineCount);
        }
      }),
    );
  });

  it('finds a GitHub token wherever it is embedded, on the right line', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('', 'const a = 1;', 'x', '  // comment', 'password: string'), { maxLength: 5 }),
        fc.array(fc.constantFrom('', 'b', '}'), { maxLength: 5 }),
        fc.integer({ min: 0, max: 10_000 }),
        (before, after, seed) => {
          const body = rand(36, seed);
          fc.pre(
            !/changeme|example|placeholder|dummy|redacted|your|xxxx|fake|sample|insert|replace|todo|test|notreal/i.test(
              body,
            ),
          );
          const content = [...before, `t = "ghp_${body}"`, ...after].join('\n');
          const found = scan1(content).filter((f) => f.kind === 'github_token');
          expect(found).toEqual([
            { path: 'src/config.ts', line: before.length + 1, kind: 'github_token', hint: 'ghp_' },
          ]);
        },
      ),
    );
  });

  it('no finding ever carries more than the public prefix of what it found', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (seed) => {
        const secret = rand(30, seed);
        for (const f of scan1(`API_SECRET="${secret}"\nghp_${rand(36, seed + 1)}`)) {
          expect(JSON.stringify(f)).not.toContain(secret.slice(0, 6));
        }
      }),
    );
  });
});
