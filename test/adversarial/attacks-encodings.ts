// Attacks on the write checks through encodings (issue 9 item 11): a credential the scanner must still see once the
// bytes are UTF-16, UTF-32, NUL-padded or hidden in a binary blob; compressed content it cannot read; and the
// protected files that run code, grant access or rewrite how git reads the others.
import { deflateSync, gzipSync } from 'node:zlib';
import { runBuiltCli } from '../support/built-cli.js';
import { OPS_TOKEN } from '../support/server.js';
import { whole, type Ctx } from './context.js';
import { callTool, check, noLeak, type Attack } from './harness.js';

/** Attacks that try to write a secret past the scanner, or a protected file, inside the app perimeter's `write`. */
export function encodingAttacks(ctx: Ctx): Attack[] {
  const { fx } = ctx;
  const refused = (category: string, name: string, args: Record<string, unknown>, secret?: string): Attack => ({
    category,
    name,
    run: async () => {
      const before = await fx.heads();
      const r = await callTool(ctx.app, 'push_files', args);
      check(r.isError === true, `push accepted: ${r.text.slice(0, 200)}`);
      check((await fx.heads()) === before, 'a branch moved');
      if (secret !== undefined) check(!whole(r).includes(secret), 'the secret was echoed');
      noLeak(fx, whole(r), args);
    },
  });
  const b64 = (path: string, bytes: Buffer) => ({
    message: 'enc',
    files: [{ path, content: bytes.toString('base64'), encoding: 'base64' }],
  });
  const ghp = 'ghp_' + 'Hv7Lq2Wn9Xc4Rt6Yp1Mb8Kd3Fs5Gj0ZaQeUiOo';
  const body = `# settings\nowner: ci\ngithub: ${ghp}\n`;
  const utf16le = Buffer.from(body, 'utf16le');
  const out: Attack[] = [
    refused('secrets', 'push_files: token in UTF-16LE, no BOM', b64('app/settings.reg', utf16le), ghp),
    refused(
      'secrets',
      'push_files: token in UTF-16LE with BOM',
      b64('app/settings.ps1', Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le])),
      ghp,
    ),
    refused('secrets', 'push_files: token in UTF-16BE', b64('app/settings.txt', Buffer.from(utf16le).swap16()), ghp),
    refused(
      'secrets',
      'push_files: token in UTF-16 at an odd offset',
      b64('app/x.bin', Buffer.concat([Buffer.from([7]), utf16le])),
      ghp,
    ),
    refused(
      'secrets',
      'push_files: token in UTF-32LE',
      b64('app/x.u32', Buffer.from([...body].flatMap((c) => [c.charCodeAt(0), 0, 0, 0]))),
      ghp,
    ),
    refused(
      'secrets',
      'push_files: token NUL-interleaved in a utf-8 string',
      { message: 'enc', files: [{ path: 'app/pad.txt', content: [...body].join('\u0000') }] },
      ghp,
    ),
    refused(
      'secrets',
      'push_files: token inside a binary blob',
      b64(
        'app/blob.bin',
        Buffer.concat([Buffer.from([0, 1, 2, 0xff, 0xfe, 10]), Buffer.from(`${ghp}\n`), Buffer.from([0, 0x90])]),
      ),
      ghp,
    ),
    refused('secrets', 'push_files: gzip of a token', b64('app/config.gz', gzipSync(body)), ghp),
    refused('secrets', 'push_files: zlib of a token', b64('app/config.z', deflateSync(body)), ghp),
    refused(
      'secrets',
      'push_files: zip appended to an image',
      b64(
        'app/logo.png',
        Buffer.concat([
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]),
          Buffer.from([0x50, 0x4b, 0x05, 0x06]),
          Buffer.alloc(18),
        ]),
      ),
    ),
  ];
  for (const p of [
    '.github/dependabot.yml',
    '.github/settings.yml',
    '.github/renovate.json',
    '.github/CODEOWNERS',
    'app/.gitconfig',
    'app/ci/Jenkinsfile',
  ]) {
    out.push(refused('protected', `push_files: write ${p}`, { message: 'x', files: [{ path: p, content: 'x: 1\n' }] }));
  }
  // Issue 9 item 10: the agent's own commit message is the payload, the operator's terminal the target. The push
  // itself is legitimate; the attack succeeds if any raw control or bidi character reaches the CLI's output.
  out.push({
    category: 'terminal',
    name: 'push_files: terminal escapes in a commit message, read back by the operator CLI',
    run: async () => {
      const message = 'docs: tidy\u001b[2K\u001b[1A\u001b]0;owned\u0007\u009b31m\rapproved \u202egnp.exe';
      const r = await callTool(ctx.app, 'push_files', {
        message,
        files: [{ path: 'app/terminal.md', content: 'x\n' }],
      });
      check(r.isError !== true, `push refused: ${r.text.slice(0, 200)}`);
      for (const args of [
        ['perimeter', 'commits', 'list', 'app'],
        ['perimeter', 'commits', 'show', 'app', String((r.structured as { commit: string }).commit)],
      ]) {
        const cli = await runBuiltCli([...args, '--url', fx.srv.url], { env: { GIT_BLINDER_OPS_TOKEN: OPS_TOKEN } });
        check(cli.code === 0, `CLI failed: ${cli.stderr}`);
        check(
          // eslint-disable-next-line no-control-regex
          !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u.test(cli.stdout + cli.stderr),
          `raw control character in: ${JSON.stringify(cli.stdout.slice(0, 300))}`,
        );
      }
    },
  });
  return out;
}
