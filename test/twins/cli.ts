// `npm run twins -- --runs N --seed S [--calls C] [--upstream local|github] [--only history|worktree] [--no-shrink]
// [--no-known]`:
// long hunts of the twin check. Prints each run, then per driver either ok or the smallest failing case (seed, run,
// step, the call on both twins, the plan's hidden options, and the first differing bytes). Exit 1 on a failure.
import { parseArgs } from 'node:util';
import { UPSTREAM_KINDS, type UpstreamKind } from '../support/both-upstreams.js';
import { loadDrivers } from './drivers.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    seed: { type: 'string' },
    calls: { type: 'string' },
    upstream: { type: 'string' },
    only: { type: 'string' },
    'no-shrink': { type: 'boolean', default: false },
    'no-known': { type: 'boolean', default: false },
  },
});

const seed = values.seed === undefined ? Math.floor(Math.random() * 0x7fffffff) : Number(values.seed);
const runs = Number(values.runs);
const calls = values.calls === undefined ? undefined : Number(values.calls);
if (
  !Number.isInteger(seed) ||
  !Number.isInteger(runs) ||
  runs < 1 ||
  (calls !== undefined && !(Number.isInteger(calls) && calls > 0))
) {
  process.stderr.write('twins: --runs, --seed and --calls take positive integers\n');
  process.exit(2);
}
const upstreams: UpstreamKind[] =
  values.upstream === undefined ? [...UPSTREAM_KINDS] : [values.upstream as UpstreamKind];
if (!upstreams.every((u) => UPSTREAM_KINDS.includes(u))) {
  process.stderr.write(`twins: --upstream is one of ${UPSTREAM_KINDS.join(', ')}\n`);
  process.exit(2);
}

const drivers = await loadDrivers();
const chosen =
  values.only === undefined ? [...drivers.values()] : [drivers.get(values.only)].filter((d) => d !== undefined);
if (chosen.length === 0) {
  process.stderr.write(`twins: no driver "${values.only}" here (have: ${[...drivers.keys()].join(', ')})\n`);
  process.exit(2);
}
process.stdout.write(
  `twins: seed ${seed}, ${runs} runs, drivers ${chosen.map((d) => d.name).join(', ')}, upstreams ${upstreams.join(', ')}\n`,
);
let ok = true;
for (const d of chosen) {
  const out = await d.run({
    seed,
    runs,
    calls,
    upstreams,
    shrink: !values['no-shrink'],
    noKnown: values['no-known'],
    log: (l) => process.stdout.write(`${l}\n`),
  });
  for (const l of out.lines) process.stdout.write(`${l}\n`);
  ok &&= out.ok;
}
process.exit(ok ? 0 : 1);
