// `git-blinder audit verify <file> [--pubkey [id=]<pem>]... [--require-signed]`, minus the console: the CLI prints
// `lines` and exits with `exitCode`. Exit codes: 0 verified, 3 broken/tampered/missing evidence, 2 usage.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { keyIdOf } from './keys.js';
import { verifyLedger, type VerifyCounters, type VerifyReport } from './verify.js';

/** Parsed options: the active file, public keys as `<pem path>` or `<key id>=<pem path>`, strict mode. */
export interface AuditVerifyOptions {
  file: string | undefined;
  pubkey?: string[];
  requireSigned?: boolean;
}

/** What the CLI prints and the exit code it should use. */
export interface AuditVerifyOutput {
  exitCode: 0 | 2 | 3;
  lines: string[];
}

const USAGE = 'usage: audit verify <ledger.jsonl> [--pubkey [keyId=]<public.pem>]... [--require-signed]';

/** Parses argv (without the command words) into options, or returns the usage answer. */
export function parseAuditVerifyArgv(argv: string[]): AuditVerifyOptions | AuditVerifyOutput {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { pubkey: { type: 'string', multiple: true }, 'require-signed': { type: 'boolean' } },
    });
    if (positionals.length !== 1) return { exitCode: 2, lines: [USAGE] };
    return { file: positionals[0], pubkey: values.pubkey ?? [], requireSigned: values['require-signed'] === true };
  } catch (e) {
    return { exitCode: 2, lines: [e instanceof Error ? e.message : String(e), USAGE] };
  }
}

/** Reads `--pubkey` specs (`<pem>` or `<key id>=<pem>`) into the verifier's map, or says which one is unusable. */
export async function readPublicKeys(specs: string[]): Promise<Record<string, string> | string> {
  const keys: Record<string, string> = {};
  for (const spec of specs) {
    // A bare path is split only at "=" before any path separator, so "dir=x/key.pem" stays a path.
    const eq = spec.indexOf('=');
    const labelled = eq > 0 && !/[/\\]/.test(spec.slice(0, eq));
    const path = labelled ? spec.slice(eq + 1) : spec;
    let pem: string;
    try {
      pem = await readFile(path, 'utf8');
    } catch {
      return `cannot read public key file ${path}`;
    }
    let id: string;
    try {
      id = labelled ? spec.slice(0, eq) : keyIdOf(pem);
    } catch {
      return `${path} is not a public key (SPKI PEM expected)`;
    }
    keys[id] = pem;
  }
  return keys;
}

function counterLines(c: VerifyCounters): string[] {
  return [
    `files: ${c.files} (rotated segments: ${c.segments})`,
    `entries: ${c.entries} (events: ${c.events}, checkpoints: ${c.checkpoints})`,
    `signed: ${c.signed}, unsigned: ${c.unsigned}${c.signaturesChecked ? '' : ' (signatures NOT checked: no public key given)'}`,
    `sequence: ${c.firstSeq ?? '-'}..${c.lastSeq ?? '-'}${c.startsAfterPruning ? ' (older segments pruned)' : ''}`,
    `last hash: ${c.lastHash ?? '-'}`,
  ];
}

function render(report: VerifyReport): AuditVerifyOutput {
  if (report.ok) return { exitCode: 0, lines: ['audit ledger verified', ...counterLines(report.counters)] };
  const p = report.problem;
  const where = p.file === undefined ? '' : ` (${p.file}${p.line === undefined ? '' : `:${p.line}`})`;
  if (p.code === 'usage') return { exitCode: 2, lines: [p.message, USAGE] };
  return {
    exitCode: 3,
    lines: [`audit ledger FAILED: ${p.code}: ${p.message}${where}`, ...counterLines(report.counters)],
  };
}

/** Verifies a ledger for the CLI: argv or parsed options in, printable lines and an exit code out. */
export async function runAuditVerify(input: string[] | AuditVerifyOptions): Promise<AuditVerifyOutput> {
  const o = Array.isArray(input) ? parseAuditVerifyArgv(input) : input;
  if ('exitCode' in o) return o;
  if (o.file === undefined || o.file === '') return { exitCode: 2, lines: [USAGE] };
  const keys = await readPublicKeys(o.pubkey ?? []);
  if (typeof keys === 'string') return { exitCode: 2, lines: [keys, USAGE] };
  if (o.requireSigned === true && Object.keys(keys).length === 0) {
    return { exitCode: 2, lines: ['--require-signed needs at least one --pubkey', USAGE] };
  }
  return render(await verifyLedger(o.file, { publicKeys: keys, requireSigned: o.requireSigned === true }));
}
