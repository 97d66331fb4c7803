// Edits (issue 23 §3) as an oracle and as a lever: guessing what a write-only or private file holds through
// edit_file's old_text or push_files' expected_blob_sha, ordering tricks that would let a readable file's refusal
// say whether a hidden one exists, floods of edits, empty old_text, and a credential assembled by two harmless edits.
import { gitIn } from '../support/gitdir.js';
import { sameAnswers, whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

/** Edit attacks; run in the write phase (they compare branch heads), before the write attacks delete fixture files. */
export function editAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const head = async () => (await gitIn(fx.bare, ['rev-parse', 'refs/heads/main'])).trim();
  const show = async (p: string) => gitIn(fx.bare, ['show', `refs/heads/main:${p}`]).catch(() => '(absent)');
  /** Runs `body`, then checks that the branch did not move and the hidden file is as it was. */
  const nothingWritten = async (body: () => Promise<void>) => {
    const before = await head();
    const kept = await show('drop/existing.txt');
    await body();
    check((await head()) === before, 'the branch moved');
    check((await show('drop/existing.txt')) === kept, 'the write-only file changed');
  };
  const edit = (path: string, old_text: string) => ({ path, edits: [{ old_text, new_text: 'PWNED' }] });
  const out: Attack[] = [];

  out.push({
    category: 'oracle-edit',
    name: 'edit_file on a write-only file: the right guess, a wrong guess and a missing path answer alike',
    run: () =>
      nothingWritten(async () => {
        check((await show('drop/existing.txt')) === 'CANARY_DROP_EXISTING\n', 'fixture file missing');
        await sameAnswers(ctx, [
          { tool: 'edit_file', args: edit('drop/existing.txt', 'CANARY_DROP_EXISTING'), mask: ['drop/existing.txt'] },
          { tool: 'edit_file', args: edit('drop/existing.txt', 'CANARY_WRONG_GUESS'), mask: ['drop/existing.txt'] },
          { tool: 'edit_file', args: edit('drop/none.txt', 'CANARY_DROP_EXISTING'), mask: ['drop/none.txt'] },
          { tool: 'edit_file', args: edit('app/none.ts', 'x'), mask: ['app/none.ts'] },
        ]);
      }),
  });
  out.push({
    category: 'oracle-edit',
    name: 'edit_file on a private file inside the read prefix answers as a missing private path',
    run: () =>
      nothingWritten(() =>
        sameAnswers(ctx, [
          { tool: 'edit_file', args: edit('app/.env', 'DB_PASSWORD=CANARY_ENV_FILE'), mask: ['app/.env'] },
          { tool: 'edit_file', args: edit('app/none/.env', 'DB_PASSWORD='), mask: ['app/none/.env'] },
        ]),
      ),
  });
  out.push({
    category: 'oracle-edit',
    name: 'edit_file on a readable link to a hidden file answers as a missing file',
    run: () =>
      nothingWritten(() =>
        sameAnswers(ctx, [
          { tool: 'edit_file', args: edit('app/links/only-bad', 'CANARY'), mask: ['app/links/only-bad'] },
          { tool: 'edit_file', args: edit('app/none.ts', 'x'), mask: ['app/none.ts'] },
        ]),
      ),
  });
  out.push({
    category: 'oracle-edit',
    name: "edit_files: a readable file's refusal never shows whether the hidden file before it exists",
    run: () =>
      nothingWritten(() =>
        sameAnswers(ctx, [
          {
            tool: 'edit_files',
            args: { message: 'm', files: [edit('drop/existing.txt', 'CANARY'), edit('app/main.ts', 'no such text')] },
            mask: ['drop/existing.txt'],
          },
          {
            tool: 'edit_files',
            args: { message: 'm', files: [edit('drop/none.txt', 'CANARY'), edit('app/main.ts', 'no such text')] },
            mask: ['drop/none.txt'],
          },
        ]),
      ),
  });
  out.push({
    category: 'oracle-edit',
    name: 'push_files expected_blob_sha on a write-only file: its real blob id reads as a made-up one',
    run: async () => {
      const real = (await gitIn(fx.bare, ['rev-parse', 'refs/heads/main:drop/existing.txt'])).trim();
      const file = (sha: string) => ({
        message: 'm',
        files: [{ path: 'drop/existing.txt', content: 'PWNED\n', expected_blob_sha: sha }],
      });
      await nothingWritten(() =>
        sameAnswers(ctx, [
          { tool: 'push_files', args: file(real), mask: [real] },
          { tool: 'push_files', args: file('0'.repeat(40)), mask: ['0'.repeat(40)] },
        ]),
      );
    },
  });
  out.push({
    category: 'edit-bounds',
    name: 'edit_file with an empty old_text is refused before anything is read',
    run: () =>
      nothingWritten(async () => {
        const r = await callTool(ctx.app, 'edit_file', {
          path: 'app/main.ts',
          edits: [{ old_text: '', new_text: 'x' }],
        });
        check(r.isError === true, `empty old_text answered: ${r.text.slice(0, 200)}`);
        noLeak(fx, whole(r), {});
      }),
  });
  out.push({
    category: 'edit-bounds',
    name: 'a flood of edits (101 in one file, 51 files) is refused by the schema; 100 one-letter edits stay bounded',
    run: () =>
      nothingWritten(async () => {
        const many = Array.from({ length: 101 }, () => ({ old_text: 'e', new_text: 'E', occurrence: 1 }));
        const r1 = await callTool(ctx.app, 'edit_file', { path: 'app/main.ts', edits: many });
        check(r1.isError === true, '101 edits were taken');
        const files = Array.from({ length: 51 }, (_, i) => edit(`app/f${i}.ts`, 'x'));
        const r2 = await callTool(ctx.app, 'edit_files', { message: 'm', files });
        check(r2.isError === true, '51 files were taken');
        // 100 edits of one frequent letter, each asking for a match far past the end: counted, refused, quickly.
        const t0 = Date.now();
        const far = Array.from({ length: 100 }, () => ({ old_text: 'e', new_text: 'E', occurrence: 1000 }));
        const r3 = await callTool(ctx.app, 'edit_file', { path: 'app/main.ts', edits: far });
        check(r3.isError === true, 'an occurrence past the end was taken');
        check(Date.now() - t0 < 10_000, `100 edits took ${Date.now() - t0} ms`);
      }),
  });
  out.push({
    category: 'edit-secrets',
    name: 'a credential assembled by two edits is refused: the scan runs on the result, not on new_text',
    run: async () => {
      const path = `app/assembled-${fx.kind}.ts`;
      // Built at run time so this file holds no token-shaped literal; each half alone is too short to be one.
      const first = ['gh', 'p_', 'R8x2Kq9LmZ4vT7wN1pB6'].join('');
      const rest = 'yC3hJ5sD0fG2aQ8e';
      const w = await callTool(ctx.app, 'push_files', {
        message: 'm',
        files: [{ path, content: `const k = "${first}";\n` }],
      });
      check(!w.isError, `setup push refused: ${w.text}`);
      const before = await head();
      const r = await callTool(ctx.app, 'edit_file', {
        path,
        edits: [{ old_text: `${first}"`, new_text: `${first}${rest}"` }],
      });
      check(r.isError === true, 'the assembled credential was committed');
      check((await head()) === before, 'the branch moved');
    },
  });
  return out;
}
