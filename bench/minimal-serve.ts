// The minimal SDK server (bench/minimal-server.ts) as its own process, for the throughput section: `tsx
// bench/minimal-serve.ts <repo>` prints its MCP URL and serves until it is killed.
import { createLocalGitUpstream } from '../src/upstream/localgit/index.js';
import { startMinimalServer } from './minimal-server.js';

const repo = process.argv[2];
if (!repo) throw new Error('usage: minimal-serve.ts <repo>');
const srv = await startMinimalServer(createLocalGitUpstream(), repo, 'main');
process.stdout.write(`minimal listening on ${srv.url}/mcp\n`);
process.on('SIGTERM', () => void srv.close().then(() => process.exit(0)));
