// Issue 9 item 3: with `write` wider than `read`, an agent pushed a readable change plus a delete (or a write) of an
// unreadable path, then read its own commit: `omitted_count` was 1 or 0 depending on whether the hidden file existed,
// or on whether a guessed content was right. A path the perimeter may write but not read is now never counted, so
// every answer about such a commit is the same whatever the hidden state was.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesOf, UPSTREAM_KINDS, serveBoth, type Served } from '../support/both-upstreams.js';
import type { Agent } from '../support/server.js';

/** The part of a get_commit answer that does not name the commit (sha, dates) or the agent's own readable path. */
const shapeOf = (r: { isError?: boolean; text: string; structured: any }, own: string) =>
  JSON.stringify({
    isError: r.isError ?? false,
    files: r.structured?.files,
    stats: r.structured?.stats,
    omitted: r.structured?.omitted_count,
  })
    .split(own)
    .join('P');

/** The git blob id of UTF-8 text (SHA-1 repositories). */
const blobId = (text: string): string => {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
};

async function pushAndRead(a: Agent, own: string, extra: Record<string, unknown>, ownInExtra = false) {
  const mine = ownInExtra ? [] : [{ path: own, content: 'x\n' }];
  const push = await a.call('push_files', {
    message: 'change',
    files: [...mine, ...((extra.files as unknown[]) ?? [])],
    ...(extra.delete ? { delete: extra.delete } : {}),
  });
  expect(push.isError, push.text).toBeUndefined();
  const sha = push.structured.commit as string;
  const shown = await a.call('get_commit', { sha });
  const listed = await a.call('list_commits', { per_page: 1 });
  // Issue 23: each written file's blob id is the hash of the bytes this call sent, checked here and then masked (it
  // differs between a right and a wrong guess only because the agent sent different content).
  const sent = [...mine, ...((extra.files as { content: string }[]) ?? [])];
  let text = bytesOf(push);
  for (const [i, f] of ((push.structured.files ?? []) as { blob_sha: string }[]).entries()) {
    expect(f.blob_sha).toBe(blobId(sent[i]?.content ?? ''));
    text = text.split(f.blob_sha).join('B');
  }
  return {
    push: text.split(sha).join('S').split(own).join('P'),
    commit: shapeOf(shown, own),
    omitted: shown.structured?.omitted_count,
    listedSame: listed.structured.commits[0]?.sha === sha,
  };
}

describe.each(UPSTREAM_KINDS)('%s upstream', (kind) => {
  let s: Served;
  beforeAll(async () => {
    s = await serveBoth(
      kind,
      [
        {
          message: 'init',
          files: { 'app/main.ts': '1\n', 'drop/existing.txt': 'SECRET=abc\n', 'secret/k.txt': 'k\n' },
        },
      ],
      { limits: true },
    );
    await s.srv.perimeter({ id: 'p', repo: s.repo, read: ['app/**'], write: ['app/**', 'drop/**'] });
  }, 60_000);
  afterAll(async () => s?.close());

  it('a guessed content of a write-only file, right or wrong, gives the same answers', async () => {
    const a = await s.srv.connect('/mcp/p');
    const right = await pushAndRead(a, 'app/g1.ts', {
      files: [{ path: 'drop/existing.txt', content: 'SECRET=abc\n' }],
    });
    const wrong = await pushAndRead(a, 'app/g2.ts', {
      files: [{ path: 'drop/existing.txt', content: 'SECRET=abd\n' }],
    });
    expect(wrong).toEqual(right);
    expect(right.omitted).toBe(0);
    expect(right.listedSame).toBe(true);
  });

  it('deleting a write-only file that existed answers like deleting one that never did', async () => {
    const a = await s.srv.connect('/mcp/p');
    const existed = await pushAndRead(a, 'app/d1.ts', { delete: ['drop/existing.txt'] });
    const never = await pushAndRead(a, 'app/d2.ts', { delete: ['drop/never.txt'] });
    expect(never).toEqual({ ...existed, push: existed.push.split('drop/existing.txt').join('drop/never.txt') });
    expect(existed.omitted).toBe(0);
  });

  it('a commit that touches only write-only paths is not found either way, and history does not change', async () => {
    const a = await s.srv.connect('/mcp/p');
    await a.call('push_files', { message: 'seed', files: [{ path: 'drop/seed.txt', content: 's\n' }] });
    const history = bytesOf(await a.call('list_commits', {}));
    const answers: string[] = [];
    for (const path of ['drop/seed.txt', 'drop/none.txt']) {
      const push = await a.call('push_files', { message: 'only', files: [], delete: [path] });
      const sha = push.structured.commit as string;
      answers.push(
        bytesOf(await a.call('get_commit', { sha }))
          .split(sha)
          .join('S'),
      );
    }
    expect(answers[1]).toBe(answers[0]);
    expect(JSON.parse(answers[0]!).isError).toBe(true);
    expect(bytesOf(await a.call('list_commits', {}))).toBe(history);
  });

  it('a readable copy of a write-only file deleted in the same commit reads like a plain add (no rename pairing shows)', async () => {
    const a = await s.srv.connect('/mcp/p');
    const body = 'line one\nline two\nPIN=4321\nline four\nline five\n';
    await a.call('push_files', { message: 'setup', files: [{ path: 'drop/multi.txt', content: body }] });
    const paired = await pushAndRead(
      a,
      'app/r1.txt',
      { files: [{ path: 'app/r1.txt', content: body }], delete: ['drop/multi.txt'] },
      true,
    );
    const plain = await pushAndRead(
      a,
      'app/r2.txt',
      { files: [{ path: 'app/r2.txt', content: body }], delete: ['drop/none-multi.txt'] },
      true,
    );
    expect(plain).toEqual({ ...paired, push: paired.push.split('drop/multi.txt').join('drop/none-multi.txt') });
    expect(paired.commit).toContain('+PIN=4321');
  });

  it('files outside both read and write are still counted', async () => {
    const root = await s.srv.connect('/mcp/root', 'legacy', {
      authorization: 'Bearer test-ops-token-0123456789abcdef0123',
    });
    const w = await root.call('push_files', {
      repo: s.repo,
      ref: 'main',
      message: 'op',
      files: [
        { path: 'app/op.ts', content: 'o\n' },
        { path: 'secret/k.txt', content: 'k2\n' },
      ],
    });
    const a = await s.srv.connect('/mcp/p');
    expect((await a.call('get_commit', { sha: w.structured.commit })).structured.omitted_count).toBe(1);
  });
});
