// The text blocks of issue 11: compact, one record per line, and no value can break or fake a line.
import { describe, expect, it } from 'vitest';
import { toolNamed } from '../../src/registry/index.js';
import { commitLine, field, fileChangeText, subjectOf } from '../../src/registry/render.js';

const FENCE = { nonce: '0123456789abcdef' };
const render = (tool: string, value: unknown): string => toolNamed(tool)!.render(value, FENCE);
const SHA = 'a'.repeat(40);
const person = { name: 'Ann', email: 'ann@example.test', date: '2026-01-01T00:00:00Z' };

describe('render pieces', () => {
  it('prints plain fields as they are and quotes anything that could break or fake a line', () => {
    expect(field('src/a.ts')).toBe('src/a.ts');
    expect(field('a\nfile 1 x secret.txt')).toBe('"a\\nfile 1 x secret.txt"');
    expect(field('tab\there')).toBe('"tab\\there"');
    expect(field(' lead')).toBe('" lead"');
    expect(field('q"uote')).toBe('"q\\"uote"');
    expect(field('')).toBe('""');
    expect(field('é/中文.ts')).toBe('é/中文.ts');
  });
  it('takes the subject line of a message, quoted when it carries control characters', () => {
    expect(subjectOf('fix: a\n\nbody')).toBe('fix: a');
    expect(subjectOf('crlf\r\nbody')).toBe('crlf');
    expect(subjectOf('esc \u001b[2J')).toBe('"esc \\u001b[2J"');
    expect(subjectOf('')).toBe('');
  });
  it('prints one commit per line and one file change with its patch', () => {
    expect(commitLine({ sha: SHA, message: 'm\nbody', author: person })).toBe(
      `${SHA} 2026-01-01T00:00:00Z Ann <ann@example.test> m`,
    );
    expect(commitLine({ sha: SHA, message: 'm', author: person, parents: [] })).toBe(
      `${SHA} (parents none) 2026-01-01T00:00:00Z Ann <ann@example.test> m`,
    );
    expect(fileChangeText({ path: 'b', previous_path: 'a', status: 'renamed', additions: 0, deletions: 0 })).toBe(
      'R a -> b +0 -0\n',
    );
    expect(
      fileChangeText({ path: 'a', status: 'modified', additions: 1, deletions: 1, patch: '@@ -1 +1 @@\n-x\n+y' }),
    ).toBe('M a +1 -1\n@@ -1 +1 @@\n-x\n+y\n');
  });
});

describe('tool renders', () => {
  it('get_tree: a header, one `type size sha path` line per entry, and the way to the next page', () => {
    const text = render('get_tree', {
      path: '',
      recursive: true,
      entries: [
        { path: 'a.ts', type: 'file', sha: SHA, size: 3 },
        { path: 'd', type: 'dir' },
        { path: 'x\ny', type: 'file', sha: SHA, size: 1 },
      ],
      count: 3,
      truncated: true,
      next_page: 2,
    });
    expect(text).toBe(
      `.: 3 entries, recursive\nfile 3 ${SHA} a.ts\ndir - - d\nfile 1 ${SHA} "x\\ny"\ntruncated: more with page: 2\n`,
    );
  });
  it('get_file: a whole text file is its content byte for byte; a window, base64 or a link gets one header line', () => {
    const base = { path: 'a.txt', sha: SHA, size: 6, encoding: 'utf-8', content: 'one\ntwo' };
    expect(render('get_file', base)).toBe('one\ntwo');
    expect(render('get_file', { ...base, content: 'two', total_lines: 2, start_line: 2, end_line: 2 })).toBe(
      'a.txt: lines 2-2 of 2\ntwo',
    );
    expect(render('get_file', { ...base, encoding: 'base64', content: 'AAE=' })).toBe('a.txt: base64, 6 bytes\nAAE=');
    expect(render('get_file', { ...base, symlink: true, content: 'b.txt' })).toBe('a.txt: symlink\nb.txt');
  });
  it('get_commit: git show layout without the summary line when nothing is left out', () => {
    const value = {
      sha: SHA,
      message: 'subject\n\nbody',
      author: person,
      committer: person,
      files: [],
      stats: { additions: 0, deletions: 0, total: 0 },
      omitted_count: 0,
      truncated: false,
    };
    expect(render('get_commit', value)).toBe(
      `commit ${SHA}\nAuthor: Ann <ann@example.test> 2026-01-01T00:00:00Z\n\n<untrusted-0123456789abcdef>\nsubject\n\nbody\n</untrusted-0123456789abcdef>\n\n`,
    );
    expect(render('get_commit', { ...value, omitted_count: 2, truncated: true, next_files_page: 2 })).toContain(
      '2 other files omitted; all visible files +0 -0\ntruncated: more with files_page: 2\n',
    );
  });
  it('list_commits: the commit lines fenced once as untrusted text (authors and subjects are written by people)', () => {
    const commits = [{ sha: SHA, message: 'fix\nbody', author: person }];
    expect(render('list_commits', { commits, page: 1, per_page: 30, has_more: false })).toBe(
      `page 1, 1 commits\n<untrusted-0123456789abcdef>\n${SHA} 2026-01-01T00:00:00Z Ann <ann@example.test> fix\n</untrusted-0123456789abcdef>\n`,
    );
    expect(render('list_commits', { commits: [], page: 2, per_page: 30, has_more: false })).toBe('page 2, 0 commits\n');
  });
  it('search_code and changes_since: one match or change per line', () => {
    expect(
      render('search_code', { matches: [{ path: 'a.ts', line: 3, column: 5, text: 'let x\r' }], truncated: true }),
    ).toBe('a.ts:3:5: let x \ntruncated: more matches exist (raise max_results or narrow path)\n');
    expect(
      render('changes_since', {
        cursor: 'gbc1.x',
        fresh_instance: false,
        changes: [
          { path: 'b', change: 'renamed', previous_path: 'a' },
          { path: 'c', change: 'deleted' },
        ],
        truncated: false,
      }),
    ).toBe('cursor: gbc1.x\n2 changes\nR a -> b\nD c\n');
  });
});
