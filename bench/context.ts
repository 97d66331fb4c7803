// Section 5: context cost. Bytes an agent's context receives (tools/list, each tool's answer) next to the raw git
// output that carries the same information, on a real repository (a clone of this one).
import { startTestServer } from '../test/support/server.js';
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { connectAgent } from './clients.js';
import { selfFixture } from './fixtures.js';
import { git } from './genrepo.js';
import { ratio } from './stats.js';

const bytes = (s: string) => Buffer.byteLength(s);
const SCOPE = ['src', 'test', 'README.md'];

/** Runs section 5. */
export async function benchContext(): Promise<Record<string, unknown>> {
  const fx = await selfFixture();
  const srv = await startTestServer({ upstream: createLocalGitUpstream() });
  try {
    await srv.perimeter({ id: 'agent', repo: fx.dir, read: ['src/**', 'test/**', 'README.md'], write: ['src/**'] });
    const agent = await connectAgent(`${srv.url}/mcp/agent`);
    const list = await agent.client.listTools();
    const listBytes = bytes(JSON.stringify(list));
    // The budget test/issues/11-compact-answers-and-pages holds: the eight first tools and issue 23's two edit tools
    // within 9 KB. The coordination tools issue 23 also added (activity, leases) are counted beside them.
    const coordination = new Set(['activity', 'lease_acquire', 'lease_release']);
    const budgeted = list.tools.filter((t) => !coordination.has(t.name));
    const budgetedBytes = bytes(JSON.stringify({ tools: budgeted }));
    const files3 = [fx.file, 'src/core/verdict.ts', 'src/http/app.ts'];
    const cases: { name: string; tool: string; args: Record<string, unknown>; git: string[][] }[] = [
      {
        name: 'get_tree recursive (root)',
        tool: 'get_tree',
        args: { recursive: true },
        git: [['ls-tree', '-r', '-l', 'main', '--', ...SCOPE]],
      },
      { name: 'get_tree one level (src)', tool: 'get_tree', args: { path: 'src' }, git: [['ls-tree', 'main', 'src/']] },
      { name: 'get_file', tool: 'get_file', args: { path: fx.file }, git: [['show', `main:${fx.file}`]] },
      {
        name: 'get_files (3)',
        tool: 'get_files',
        args: { paths: files3 },
        git: files3.map((f) => ['show', `main:${f}`]),
      },
      {
        name: 'list_commits (30)',
        tool: 'list_commits',
        args: { per_page: 30 },
        git: [['log', '-30', 'main', '--', ...SCOPE]],
      },
      { name: 'get_commit', tool: 'get_commit', args: { sha: fx.commit }, git: [['show', fx.commit, '--', ...SCOPE]] },
    ];
    const answers = [];
    for (const c of cases) {
      const r = await agent.call(c.tool, c.args);
      const text = (r.content ?? []).map((x: any) => x.text ?? '').join('');
      let raw = 0;
      for (const args of c.git) raw += bytes(await git(fx.dir, ...args));
      answers.push({
        answer: c.name,
        error: r.isError === true,
        text_bytes: bytes(text),
        result_bytes: bytes(JSON.stringify(r)),
        text_tokens_est: Math.round(bytes(text) / 4),
        raw_git: c.git.map((a) => `git ${a.join(' ')}`).join(' + '),
        raw_git_bytes: raw,
        text_vs_git: ratio(bytes(text), raw),
        met: bytes(text) <= raw,
      });
    }
    await agent.close();
    return {
      repository: { files: fx.files, commits: fx.commits },
      perimeter: { read: ['src/**', 'test/**', 'README.md'], write: ['src/**'] },
      tools_list: {
        tools: list.tools.length,
        bytes: listBytes,
        tokens_est: Math.round(listBytes / 4),
        budgeted: { tools: budgeted.length, bytes: budgetedBytes },
        per_tool: Object.fromEntries(list.tools.map((t) => [t.name, bytes(JSON.stringify(t))])),
        target_bytes: 9216,
        met: budgetedBytes <= 9216,
      },
      note: 'text_bytes is the text block an agent reads; result_bytes is the whole MCP result, which also carries the same JSON as structuredContent',
      answers,
    };
  } finally {
    await srv.close();
  }
}
