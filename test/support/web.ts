// A git-blinder with a real proposal service and the /ui page over a real bare repository, for page tests.
import type { ProposalEvent, ProposalService } from '../../src/registry/proposals.js';
import type { Proposal, ProposalChange } from '../../src/core/index.js';
import { createLocalGitUpstream } from '../../src/upstream/localgit/index.js';
import { makeRepo, type CommitSpec, type GitDir } from './gitdir.js';
import { startTestServer, type TestServer } from './server.js';

export interface WebServer {
  readonly srv: TestServer;
  readonly repo: GitDir;
  readonly proposals: ProposalService;
  readonly events: ProposalEvent[];
  /** Holds a push_files change for approval on `main` of perimeter `app`, as an agent's call would. */
  propose(
    files: { path: string; content: string; encoding?: 'utf-8' | 'base64' }[],
    o?: { deletes?: string[]; reason?: string; protected?: string[] },
  ): Promise<Proposal>;
  close(): Promise<void>;
}

/** Starts the server; perimeter `app` reads and writes everything on `main`; `held` writes docs/** after approval. */
export async function startWebServer(commits: CommitSpec[]): Promise<WebServer> {
  const repo = await makeRepo(commits, { bare: true });
  const upstream = createLocalGitUpstream();
  const events: ProposalEvent[] = [];
  const srv = await startTestServer({ upstream, openPerimeters: false, proposals: { audit: (e) => events.push(e) } });
  const proposals = srv.proposals;
  if (!proposals) throw new Error('the test server was started without proposals');
  await srv.perimeter({ id: 'app', repo: repo.dir, read: ['**'], write: ['**'] });
  await srv.perimeter({
    id: 'held',
    repo: repo.dir,
    read: ['**'],
    write: ['docs/**'],
    approval: { push_files: 'required' },
  });
  return {
    srv,
    repo,
    proposals,
    events,
    async propose(files, o = {}) {
      const change: ProposalChange = {
        kind: 'push_files',
        message: 'agent: update docs',
        files: files.map((f) => ({ path: f.path, content: f.content, encoding: f.encoding ?? 'utf-8' })),
        deletes: o.deletes ?? [],
      };
      const made = await proposals.create({
        perimeter: 'app',
        repo: repo.dir,
        branch: 'main',
        base: await repo.head('main'),
        agent: 'test-agent',
        change,
        facts: { paths: [...change.files.map((f) => f.path), ...change.deletes], protected_paths: o.protected ?? [] },
        ...(o.reason === undefined ? {} : { agentReason: o.reason }),
      });
      if (!made.ok) throw new Error(made.message);
      return made.value;
    },
    async close() {
      await srv.close();
      await repo.cleanup();
    },
  };
}
