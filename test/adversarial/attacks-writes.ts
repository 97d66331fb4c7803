// Attacks through writes and limits: protected paths, secrets, mixed writes, probing deletes, hostile sizes.
import { blockedRead, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, redact, type Attack } from './harness.js';

export function writeAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const heads = () => fx.heads();
  /** A push that must be refused whole: an error, no branch moved, and nothing of the request's secrets echoed. */
  const refusedPush = (
    category: string,
    name: string,
    args: Record<string, unknown>,
    opts: { secret?: string } = {},
  ): Attack => ({
    category,
    name,
    run: async () => {
      const before = await heads();
      const r = await callTool(ctx.app, 'push_files', args);
      check(r.isError === true, `push accepted: ${r.text.slice(0, 200)}`);
      const after = await heads();
      check(after === before, 'a branch moved');
      if (opts.secret !== undefined) check(!whole(r).includes(opts.secret), 'the secret was echoed');
      noLeak(fx, whole(r), args);
    },
  });
  const file = (path: string, content = 'x\n') => ({ path, content });
  const out: Attack[] = [];

  for (const p of [
    '.github/workflows/x.yml',
    '.github/workflows/ci.yml',
    '.github/actions/setup/action.yml',
    'CODEOWNERS',
    '.gitmodules',
    'app/.gitmodules',
    'app/.gitattributes',
    'app/.git/hooks/post-checkout',
    'app/git~1/config',
    'app/.env.',
    'app/id_rsa',
    'app/deploy.pem',
  ]) {
    out.push(refusedPush('protected', `push_files: write ${p}`, { message: 'x', files: [file(p)] }));
  }
  for (const p of ['CODEOWNERS', '.github/workflows/ci.yml']) {
    out.push(refusedPush('protected', `push_files: delete ${p}`, { message: 'x', files: [], delete: [p] }));
  }

  const ghp = 'ghp_' + 'Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVcXz';
  const secrets: [string, string][] = [
    ['GitHub token', `export const t = "${ghp}";\n`],
    ['fine-grained GitHub token', `t = "github_pat_${'11ABCDEFG0'.repeat(6)}Qx"\n`],
    ['AWS access key id', 'aws_access_key_id = AKIAQ3EGRXMPL7W2ZK5N\n'],
    ['AWS secret key', 'aws_secret_access_key = "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"\n'],
    [
      'private key block',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0\n-----END RSA PRIVATE KEY-----\n',
    ],
    ['Stripe live key', 'stripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dcQx9"\n'],
    ['URL with credentials', 'DB = "postgres://admin:Qw8Er7Ty6Ui5Op4A@db.internal:5432/app"\n'],
  ];
  for (const [label, content] of secrets) {
    out.push(
      refusedPush('secrets', `push_files: ${label}`, { message: 'cfg', files: [file('app/config.ts', content)] }),
    );
  }
  out.push(
    refusedPush(
      'secrets',
      'push_files: token base64-encoded',
      {
        message: 'cfg',
        files: [
          { path: 'app/blob.txt', content: Buffer.from(`token: ${ghp}\n`).toString('base64'), encoding: 'base64' },
        ],
      },
      { secret: ghp },
    ),
    refusedPush(
      'secrets',
      'push_files: token in the third of three files',
      { message: 'cfg', files: [file('app/a.ts'), file('app/b.ts'), file('drop/c.ts', `const k = "${ghp}";\n`)] },
      { secret: ghp },
    ),
    refusedPush(
      'secrets',
      'push_files: token split across CRLF lines',
      { message: 'cfg', files: [file('app/c.ts', `// a\r\nconst k = "${ghp}";\r\n`)] },
      { secret: ghp },
    ),
  );

  // Mixed writes: one bad path refuses everything.
  const ok = file('app/mixed-ok.ts');
  for (const [label, extra] of [
    ['out-of-scope file', { files: [ok, file('secret/x.txt')] }],
    ['out-of-scope delete', { files: [ok], delete: ['secret/keys.txt'] }],
    ['read-only docs file', { files: [ok, file('docs/guide.md')] }],
    ['traversal path', { files: [ok, file('app/../secret/x.txt')] }],
    ['protected file', { files: [ok, file('CODEOWNERS')] }],
    ['private file', { files: [ok, file('app/.env')] }],
    ['duplicate path', { files: [ok, file('app/mixed-ok.ts', 'y\n')] }],
    ['same path written and deleted', { files: [ok], delete: ['app/mixed-ok.ts'] }],
    ['invalid base64', { files: [ok, { path: 'app/b.bin', content: '!!notbase64', encoding: 'base64' }] }],
    ['look-alike dir', { files: [ok, file('\u0430pp/main.ts')] }],
    ['prefix look-alike', { files: [ok, file('app2/leak.ts')] }],
  ] as const) {
    out.push(refusedPush('mixed-write', `push_files: allowed file plus ${label}`, { message: 'mixed', ...extra }));
  }

  // Limits.
  const many = (n: number, dir = 'app/many') => Array.from({ length: n }, (_, i) => file(`${dir}/f${i}.ts`));
  out.push(
    refusedPush('limits', 'push_files: 101 files', { message: 'x', files: many(101) }),
    refusedPush('limits', 'push_files: 101 deletions', {
      message: 'x',
      files: [],
      delete: many(101).map((f) => f.path),
    }),
    refusedPush('limits', 'push_files: 100 files plus 1 deletion over the per-commit budget', {
      message: 'x',
      files: many(100),
      delete: ['app/main.ts'],
    }),
    refusedPush('limits', 'push_files: a 6 MB file', {
      message: 'x',
      files: [file('app/big.txt', 'a'.repeat(6 * 1024 * 1024))],
    }),
    refusedPush('limits', 'push_files: a 10,001-character message', {
      message: 'm'.repeat(10_001),
      files: [file('app/m.ts')],
    }),
    refusedPush('limits', 'push_files: empty message', { message: '', files: [file('app/m.ts')] }),
    refusedPush('limits', 'push_files: nothing to commit', { message: 'x', files: [] }),
  );
  const hostile: [string, string, Record<string, unknown>][] = [
    ['list_commits', 'per_page 999999', { per_page: 999_999 }],
    ['list_commits', 'per_page 0', { per_page: 0 }],
    ['list_commits', 'per_page -1', { per_page: -1 }],
    ['list_commits', 'per_page 1.5', { per_page: 1.5 }],
    ['list_commits', 'per_page as a string', { per_page: '100' }],
    ['list_commits', 'page 1e9', { page: 1e9 }],
    ['list_commits', 'page 0', { page: 0 }],
    ['list_commits', 'page 1001', { page: 1001 }],
    ['list_commits', 'page 2^53', { page: 2 ** 53 }],
    ['get_files', '10,000 paths', { paths: Array.from({ length: 10_000 }, (_, i) => `secret/f${i}`) }],
    ['get_files', '101 paths', { paths: Array.from({ length: 101 }, () => 'app/main.ts') }],
    ['get_files', 'no paths', { paths: [] }],
  ];
  for (const [tool, label, args] of hostile) {
    out.push({
      category: 'limits',
      name: `${tool}: ${label}`,
      run: async () => void (await blockedRead(ctx, tool, args, { mustFail: true })),
    });
  }

  // Probing deletes and overwrites: the answer must not tell whether a write-only (unreadable) file existed.
  const sameWrite = (
    name: string,
    a: Record<string, unknown>,
    b: Record<string, unknown>,
    masks: [string, string],
    setup?: string,
  ): Attack => ({
    category: 'delete-hidden',
    name,
    run: async () => {
      if (setup !== undefined) {
        const s = await callTool(ctx.app, 'push_files', {
          message: 'setup',
          files: [file(setup, 'CANARY_WRITE_ONLY\n')],
        });
        check(!s.isError, `setup failed: ${s.text}`);
      }
      const answers: string[] = [];
      for (const [i, args] of [a, b].entries()) {
        const before = await fx.head();
        const r = await callTool(ctx.app, 'push_files', args);
        const after = await fx.head();
        noLeak(fx, whole(r), args);
        const sha = r.structured?.commit ?? '';
        answers.push(
          redact(
            JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null }),
            sha,
            masks[i] ?? '',
            before,
            after,
          ),
        );
        if (r.isError !== true) check(after !== before, 'an accepted write made no commit');
        else check(after === before, 'a refused write moved the branch');
      }
      check(answers[0] === answers[1], `answers differ:\n  ${answers[0]}\n  ${answers[1]}`);
    },
  });
  out.push(
    sameWrite(
      'push_files: delete an existing write-only file vs a missing one',
      { message: 'd', files: [], delete: ['drop/existing.txt'] },
      { message: 'd', files: [], delete: ['drop/never-there.txt'] },
      ['drop/existing.txt', 'drop/never-there.txt'],
    ),
    sameWrite(
      'push_files: delete the same write-only path twice (existing, then gone)',
      { message: 'd', files: [], delete: ['drop/twice.txt'] },
      { message: 'd', files: [], delete: ['drop/twice.txt'] },
      ['drop/twice.txt', 'drop/twice.txt'],
      'drop/twice.txt',
    ),
    sameWrite(
      'push_files: overwrite a write-only file vs create one',
      { message: 'w', files: [file('drop/over.txt', 'v1\n')] },
      { message: 'w', files: [file('drop/fresh.txt', 'v1\n')] },
      ['drop/over.txt', 'drop/fresh.txt'],
      'drop/over.txt',
    ),
    sameWrite(
      'push_files: delete an existing out-of-scope file vs a missing one',
      { message: 'd', files: [], delete: ['secret/keys.txt'] },
      { message: 'd', files: [], delete: ['secret/nope.txt'] },
      ['secret/keys.txt', 'secret/nope.txt'],
    ),
    sameWrite(
      'push_files: delete an existing private file vs a missing one',
      { message: 'd', files: [], delete: ['app/.env'] },
      { message: 'd', files: [], delete: ['app/sub/.env'] },
      ['app/.env', 'app/sub/.env'],
    ),
    sameWrite(
      'push_files: write over an existing protected file vs a new one',
      { message: 'w', files: [file('.github/workflows/ci.yml')] },
      { message: 'w', files: [file('.github/workflows/new.yml')] },
      ['.github/workflows/ci.yml', '.github/workflows/new.yml'],
    ),
    sameWrite(
      'push_files: write into a hidden dir vs a missing dir',
      { message: 'w', files: [file('secret/new.txt')] },
      { message: 'w', files: [file('nodir/new.txt')] },
      ['secret/new.txt', 'nodir/new.txt'],
    ),
  );
  return out;
}
