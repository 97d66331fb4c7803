// A pair of working trees that differ only in what one perimeter cannot see, served by one real server (issue 19):
// the same perimeter on each, so every workspace answer must be the same on both once commit ids are masked (they
// hash hidden content: the accepted exception of SPEC §4.11). The long hunt is the twin check (test/twins/); this is
// the small, targeted form the regression tests and attacks use.
import { createLocalWorkspace, type LocalWorkspaceOptions } from '../../src/workspace/localfs/index.js';
import { makeRepo, type CommitSpec, type GitDir } from './gitdir.js';
import { startTestServer, type Agent, type TestServer } from './server.js';

export interface WsTwins {
  /** Twin with the hidden differences (`hidden: true` in `build`) and the one without. */
  readonly withHidden: { repo: GitDir; agent: Agent };
  readonly without: { repo: GitDir; agent: Agent };
  readonly srv: TestServer;
  /** Calls a tool on both and returns both answers, commit ids masked. */
  both(tool: string, args: Record<string, unknown>): Promise<[string, string]>;
  close(): Promise<void>;
}

/** Hex runs as long as a short or full commit id: masked so twins compare on everything else. */
export const maskIds = (s: string): string =>
  s.replace(/(?<![0-9a-f])[0-9a-f]{12}(?:[0-9a-f]{28}(?:[0-9a-f]{24})?)?(?![0-9a-f])/g, '<id>');

/**
 * Builds both twins from the same history; `build` then dirties each working tree (the differences are up to it and
 * must stay outside what `perimeter` may read). Perimeters `tw-h` and `tw-n` get the same globs.
 */
export async function wsTwins(
  history: CommitSpec[] | ((hidden: boolean) => CommitSpec[]),
  perimeter: { read: string[]; write?: string[]; branches?: string[] },
  build: (repo: GitDir, hidden: boolean) => Promise<void>,
  workspace: LocalWorkspaceOptions = {},
): Promise<WsTwins> {
  const of = (hidden: boolean) => (typeof history === 'function' ? history(hidden) : history);
  const h = await makeRepo(of(true));
  const n = await makeRepo(of(false));
  await build(h, true);
  await build(n, false);
  const srv = await startTestServer({ workspace: createLocalWorkspace(workspace) });
  const spec = { read: perimeter.read, write: perimeter.write ?? [], branches: perimeter.branches ?? ['main'] };
  await srv.perimeter({ id: 'tw-h', repo: h.dir, ...spec });
  await srv.perimeter({ id: 'tw-n', repo: n.dir, ...spec });
  const ah = await srv.connect('/mcp/tw-h');
  const an = await srv.connect('/mcp/tw-n');
  const answer = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await a
      .call(tool, args)
      .catch((e: Error) => ({ isError: true, text: `thrown: ${e.message}`, structured: undefined }));
    return maskIds(JSON.stringify({ isError: r.isError ?? false, text: r.text, structured: r.structured ?? null }));
  };
  return {
    withHidden: { repo: h, agent: ah },
    without: { repo: n, agent: an },
    srv,
    both: async (tool, args) => [await answer(ah, tool, args), await answer(an, tool, args)],
    close: async () => {
      await srv.close();
      await h.cleanup();
      await n.cleanup();
    },
  };
}
