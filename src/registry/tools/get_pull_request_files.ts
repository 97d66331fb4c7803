// get_pull_request_files: the readable files of a PR of this branch, with status and counts, paged; one file's patch on
// request (`path`). Built from the files API and file reads through the cut, never from the PR's raw diff (issue 22).
import * as z from 'zod/v4';
import { fileChangeText } from '../render.js';
import { FileChangeOut, Path } from '../schemas.js';
import { defineTool } from '../tool.js';
import { listPage, loadPull, morePages, PullNumber, pullNotFound, readOnlyPull, type CutPull } from './pr-view.js';

type Args = { number: number; page?: number | undefined; path?: string | undefined };
const input = z.strictObject({
  number: PullNumber,
  page: z.number().int().min(1).max(1_000_000).optional(),
  path: Path.optional().describe("One file's patch instead of the list."),
});

const Output = z.object({
  number: z.number(),
  files: z.array(FileChangeOut),
  // Of every readable file of the PR, whatever the page.
  changed_files: z.number(),
  additions: z.number(),
  deletions: z.number(),
  omitted_count: z.number(),
  truncated: z.boolean(),
  next_page: z.number().optional(),
});
type Output = z.infer<typeof Output>;

const ENVELOPE_BYTES = 200;

/** Raised as the refusal of a `path` that is not among the readable files: the same for a hidden and a missing one. */
const notInPull = (a: Args) => `${a.path ?? ''}: not in this pull request (#${a.number}).`;

export const getPullRequestFiles = defineTool<Args, CutPull | undefined, Output>({
  name: 'get_pull_request_files',
  access: 'read',
  surfaces: ['agent'],
  requires: 'pulls',
  pathMode: 'all',
  description:
    'Files of a pull request of this branch that you can read: status and counts (paged), or with `path` that file’s patch. `omitted_count` counts the others.',
  annotations: readOnlyPull('Pull request files'),
  agentInput: input,
  rootInput: input,
  output: Output,
  // The path is judged by the cut (a hidden one answers "not in this pull request"), not refused before: the answer
  // must read the same for a hidden path and one the PR does not touch.
  paths: () => [],
  rootTarget: () => ({ repo: '', ref: '' }),
  run: (a, ctx) => loadPull(ctx, a.number),
  filter: (cut, a, ctx) => {
    if (cut === undefined) return { kind: 'not_found' };
    const head = {
      number: a.number,
      changed_files: cut.files.length,
      additions: cut.stats.additions,
      deletions: cut.stats.deletions,
      omitted_count: cut.omitted_count,
    };
    if (a.path !== undefined) {
      const f = cut.files.find((x) => x.path === a.path || x.previous_path === a.path);
      if (f === undefined) return { kind: 'refused', message: notInPull(a) };
      return { kind: 'ok', value: { ...head, files: [f], truncated: false } };
    }
    const listed = cut.files.map(({ patch: _patch, ...rest }) => rest);
    const page = listPage(ctx, listed, ENVELOPE_BYTES, a.page);
    if (!page.ok) return { kind: 'refused', message: `get_pull_request_files #${a.number}: ${page.message}` };
    return { kind: 'ok', value: { ...head, files: page.value.items, ...page.value.tail } };
  },
  notFound: pullNotFound,
  render: (o: Output) => {
    const omitted = o.omitted_count > 0 ? `; ${o.omitted_count} other files omitted` : '';
    return (
      `#${o.number}: ${o.changed_files} files +${o.additions} -${o.deletions}${omitted}\n` +
      o.files.map(fileChangeText).join('') +
      morePages(o)
    );
  },
});
