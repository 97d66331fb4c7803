// Attacks through the shape of the tree (issue 9 item 4): a file written over a directory, a file written below a
// file, deep paths below protected or private files, case variants of them. GitHub's Git Data API would replace one
// with the other and delete files outside the perimeter; every such push must be refused whole, move no branch,
// leak nothing, and (where the thing in the way is hidden) read the same as when it does not exist.
import { whole, type Ctx } from './context.js';
import { callTool, check, noLeak, redact, type Attack } from './harness.js';

export function structureAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const file = (path: string, content = 'x\n') => ({ path, content });
  /** A push that must be refused whole, with every path the tree held before still there. */
  const refused = (category: string, name: string, args: Record<string, unknown>): Attack => ({
    category,
    name,
    run: async () => {
      const before = await fx.heads();
      const r = await callTool(ctx.app, 'push_files', args);
      check(r.isError === true, `push accepted: ${r.text.slice(0, 200)}`);
      check((await fx.heads()) === before, 'a branch moved');
      noLeak(fx, whole(r), args);
    },
  });
  /** Two pushes that must both be refused with the same answer once each one's own path is masked. */
  const same = (name: string, a: string, b: string): Attack => ({
    category: 'structure-oracle',
    name,
    run: async () => {
      const before = await fx.heads();
      const answers: string[] = [];
      for (const p of [a, b]) {
        const r = await callTool(ctx.app, 'push_files', { message: 's', files: [file(p)] });
        check(r.isError === true, `push of ${p} accepted`);
        noLeak(fx, whole(r), p);
        answers.push(redact(r.text, p));
      }
      check((await fx.heads()) === before, 'a branch moved');
      check(answers[0] === answers[1], `answers differ:\n  ${answers[0]}\n  ${answers[1]}`);
    },
  });
  const out: Attack[] = [];

  // A file where a directory is: visible, holding only private files, holding protected files.
  for (const p of ['app/lib', 'app/certs', 'app/config', '.github/workflows', '.github']) {
    out.push(refused('file-over-dir', `push_files: file over directory ${p}`, { message: 'f', files: [file(p)] }));
  }
  out.push(
    refused('file-over-dir', 'push_files: allowed file plus a file over app/lib', {
      message: 'f',
      files: [file('app/ok-structure.ts'), file('app/lib')],
    }),
  );

  // A file below a file: readable, private, protected, write-only (blind).
  for (const p of [
    'app/main.ts/x',
    'app/lib/util.ts/deep/er/x',
    'drop/existing.txt/x',
    '.github/workflows/ci.yml/x',
    'CODEOWNERS/x',
  ]) {
    out.push(refused('dir-over-file', `push_files: file below file ${p}`, { message: 'd', files: [file(p)] }));
  }
  // Below privacy-zone files, any depth and spelling; and case variants of protected and private names.
  for (const p of [
    'app/.env/x',
    'app/.env./x',
    'app/.ENV/x',
    'app/.eNv/a/b/c',
    'app/id_rsa/x',
    'app/ID_RSA.pub/x',
    'app/certs/server.pem/x',
    'app/Certs/Server.PEM/x',
    'app/config/credentials.json/x',
    'app/.gitattributes/x',
    'app/.GitModules/x',
  ]) {
    out.push(
      refused('below-private', `push_files: file below ${p.slice(0, p.lastIndexOf('/'))}`, {
        message: 'p',
        files: [file(p)],
      }),
    );
  }
  out.push(
    same('push_files: below an existing private file vs a missing one', 'app/.env/x', 'app/nothere/.env/x'),
    same('push_files: below an existing private key vs a missing one', 'app/id_rsa/x', 'app/none/id_rsa/x'),
    same('push_files: below a visible file vs below an existing private file', 'app/main.ts/x', 'app/.ENV/x'),
    same('push_files: over a visible directory vs over one holding only private files', 'app/lib', 'app/certs'),
  );
  return out;
}
