/**
 * Secret scanning for content an agent wants to write. A safety net, not a boundary: it catches the common
 * accident (a token pasted into a config file) and reports where, never what.
 *
 * Every regex here is linear in the input: literal prefixes, bounded or possessive-in-effect quantifiers, no
 * nested repetition over overlapping classes (a test runs each against 1 MB adversarial lines).
 *
 * Decisions:
 * - Bare JWTs are not flagged (test fixtures and docs are full of jwt.io samples); a JWT or any opaque token after
 *   `Bearer` is, as is a JWT assigned to a secret-looking name (generic rule).
 * - Stripe test keys (`sk_test_`) are not flagged: they cannot move money and are committed in examples.
 * - AWS's documented example keys (containing `EXAMPLE`) are not flagged.
 * - A private key header alone (a mention in prose or a detector's own code) is not flagged; a header followed by
 *   a key body is, whether the line breaks are real or `\n` escapes inside a JSON string.
 * - No inline "allow" comment is honoured: the author of the content is the agent being checked.
 */

/** What kind of secret a finding looks like. */
export type SecretKind =
  | 'private_key'
  | 'github_token'
  | 'aws_access_key_id'
  | 'aws_secret_access_key'
  | 'slack_token'
  | 'slack_webhook'
  | 'stripe_live_key'
  | 'google_api_key'
  | 'npm_token'
  | 'pypi_token'
  | 'anthropic_key'
  | 'openai_key'
  | 'bearer_token'
  | 'url_credentials'
  | 'generic_secret';

/** One place that looks like a secret. Never carries the secret: at most its public prefix (`ghp_`, `AKIA`). */
export interface Finding {
  readonly path: string;
  /** 1-based line of the start of the secret. */
  readonly line: number;
  readonly kind: SecretKind;
  /** The token's fixed public prefix, when the kind has one. */
  readonly hint?: string;
}

/** A file as it would be written. */
export interface ScannedFile {
  readonly path: string;
  readonly content: string;
}

/** Human names for each kind, used in refusal messages. */
export const SECRET_KIND_LABELS: Readonly<Record<SecretKind, string>> = {
  private_key: 'private key',
  github_token: 'GitHub token',
  aws_access_key_id: 'AWS access key id',
  aws_secret_access_key: 'AWS secret access key',
  slack_token: 'Slack token',
  slack_webhook: 'Slack webhook URL',
  stripe_live_key: 'Stripe live key',
  google_api_key: 'Google API key',
  npm_token: 'npm token',
  pypi_token: 'PyPI token',
  anthropic_key: 'Anthropic API key',
  openai_key: 'OpenAI API key',
  bearer_token: 'bearer token',
  url_credentials: 'password in a URL',
  generic_secret: 'secret-looking value assigned to a password, secret, token or key',
};

interface Rule {
  readonly kind: SecretKind;
  /** Global regex. The last group, when present, is the secret and ends the match; otherwise the whole match is. */
  readonly re: RegExp;
  /** Length of the public prefix to show as a hint (0: none). */
  readonly hint: number;
  /** Extra plausibility check on the secret; rejects placeholders. */
  readonly accept?: (secret: string, match: RegExpMatchArray) => boolean;
  /** Context rules yield to a specific rule that matched the same characters. */
  readonly context?: boolean;
}

const notPlaceholder = (s: string): boolean => !PLACEHOLDER_WORDS.test(s) && shannonEntropy(s) >= 3;

const RULES: readonly Rule[] = [
  {
    kind: 'private_key',
    re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\r?\n|(?:\\r)?\\n){1,2}(?:[A-Za-z0-9+/=]{16}|Proc-Type:|Version:|Comment:)/g,
    hint: 0,
  },
  { kind: 'github_token', re: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,251}/g, hint: 4, accept: notPlaceholder },
  { kind: 'github_token', re: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{50,240}/g, hint: 11, accept: notPlaceholder },
  {
    kind: 'aws_access_key_id',
    re: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g,
    hint: 4,
    accept: (s) => !s.includes('EXAMPLE'),
  },
  {
    kind: 'aws_secret_access_key',
    re: /aws_?secret_?(?:access_?)?key[A-Za-z0-9_]{0,10}["'`]?[ \t]*[:=]{1,2}>?[ \t]*["'`]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    hint: 0,
    accept: (s) => !s.includes('EXAMPLE') && notPlaceholder(s),
  },
  { kind: 'slack_token', re: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,250}/g, hint: 4, accept: notPlaceholder },
  {
    kind: 'slack_webhook',
    re: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}\/[A-Za-z0-9]{20,32}/g,
    hint: 0,
    accept: notPlaceholder,
  },
  { kind: 'stripe_live_key', re: /(?<![A-Za-z0-9])[sr]k_live_[A-Za-z0-9]{20,247}/g, hint: 8, accept: notPlaceholder },
  { kind: 'google_api_key', re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g, hint: 4, accept: notPlaceholder },
  {
    kind: 'npm_token',
    re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    hint: 4,
    // `npm_` also starts npm's own environment variables; a token has digits, a camelCase name rarely does.
    accept: (s) => /[0-9]/.test(s) && notPlaceholder(s),
  },
  { kind: 'pypi_token', re: /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g, hint: 5, accept: notPlaceholder },
  { kind: 'anthropic_key', re: /sk-ant-[A-Za-z0-9_-]{32,}/g, hint: 7, accept: notPlaceholder },
  { kind: 'openai_key', re: /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}/g, hint: 3, accept: notPlaceholder },
  { kind: 'openai_key', re: /sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/g, hint: 3 },
  {
    kind: 'bearer_token',
    re: /\bbearer[ \t]+([A-Za-z0-9._~+/=-]{20,})/gi,
    hint: 0,
    accept: (s) => looksRandom(s),
    context: true,
  },
  {
    kind: 'url_credentials',
    re: /\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/[^\s/:@"'`]{1,256}:([^\s/@"'`]{1,256})(?=@)/g,
    hint: 0,
    accept: (s) => s.length >= 12 && !isReference(s) && notPlaceholder(s),
    context: true,
  },
  {
    kind: 'generic_secret',
    re: /(?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?)([A-Za-z0-9_.-]{0,30})["'`]?[ \t]*(?::=|=>|[:=])[ \t]*["'`]?([^\s"'`,;]{20,})/gi,
    hint: 0,
    accept: (s, m) => !NOT_A_SECRET_NAME.test(m[1] ?? '') && looksRandom(s),
    context: true,
  },
];

// Words that mark a value as a stand-in rather than a credential.
const PLACEHOLDER_WORDS =
  /changeme|change_me|change-me|example|placeholder|dummy|redacted|your|xxxx|\*\*\*\*|\.\.\.\.|fake|sample|insert|replace|todo|test|notreal|not-a-real|not_a_real/i;
// Names that hold something about a secret, not the secret (`token_url`, `SECRET_NAME`, `password_file`).
const NOT_A_SECRET_NAME =
  /(?:name|file|path|url|uri|endpoint|type|length|len|env|header|field|ref|var|id|count|size|prefix)$/i;
// Interpolation and templating: `${VAR}`, `{{ x }}`, `$(cmd)`, `%(x)s`, `#{x}`.
const INTERPOLATION = /\$\{|\{\{|\$\(|%\(|%\{|#\{/;

/** Shannon entropy of a string in bits per character (0 for the empty string). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const n = [...s].length;
  let h = 0;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

// A reference to a secret rather than a secret: a variable, a call, an index, a dotted name, a path.
function isReference(v: string): boolean {
  if (INTERPOLATION.test(v)) return true;
  if (/^\$[A-Za-z_]/.test(v)) return true;
  if (/^<[^>]*>$/.test(v) || /^\[[^\]]*\]$/.test(v)) return true;
  if (/^[A-Za-z_$][\w$.]{0,200}[([]/.test(v)) return true;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v) && !/[0-9]/.test(v)) return true;
  if (v.startsWith('/') || v.startsWith('./') || v.startsWith('../') || v.startsWith('~/')) return true;
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(v);
}

// Looks like a generated credential: not a reference, not a placeholder, two or more character classes, and
// enough entropy (hex alphabets get a lower bar: 16 symbols cap their entropy at 4 bits).
function looksRandom(v: string): boolean {
  if (isReference(v) || PLACEHOLDER_WORDS.test(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9_.\-/]/].filter((c) => c.test(v)).length;
  if (classes < 2) return false;
  const threshold = /^[0-9a-f-]+$/i.test(v) ? 3.0 : 3.5;
  return shannonEntropy(v) >= threshold;
}

/**
 * Scans file contents for things that look like credentials. Returns one finding per (path, line, kind), sorted by
 * path then line. Findings name a place and a kind, never the secret. A generic finding is dropped when a specific
 * rule already matched the same characters.
 */
export function scanForSecrets(files: readonly ScannedFile[]): Finding[] {
  const out: Finding[] = [];
  for (const file of files) out.push(...scanOne(file));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

function scanOne({ path, content }: ScannedFile): Finding[] {
  const hits: { kind: SecretKind; start: number; end: number; hint?: string; context: boolean }[] = [];
  for (const rule of RULES) {
    // matchAll works on a copy of the regex: no shared lastIndex between calls.
    for (const m of content.matchAll(rule.re)) {
      const secret = lastGroup(m);
      const start = (m.index ?? 0) + m[0].length - secret.length;
      // Judge a bounded prefix: a 1 MB "token" is as suspicious from its first 4 KB, and the checks stay cheap.
      if (rule.accept && !rule.accept(secret.length > 4096 ? secret.slice(0, 4096) : secret, m)) continue;
      const hit = { kind: rule.kind, start, end: start + secret.length, context: rule.context === true };
      hits.push(rule.hint > 0 ? { ...hit, hint: m[0].slice(0, rule.hint) } : hit);
    }
  }
  const specific = hits.filter((h) => !h.context);
  const kept = hits.filter((h) => !h.context || !specific.some((s) => s.start < h.end && h.start < s.end));
  if (kept.length === 0) return [];

  const lineAt = lineIndex(content);
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const h of kept) {
    const line = lineAt(h.start);
    const key = `${line}\u0000${h.kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(h.hint === undefined ? { path, line, kind: h.kind } : { path, line, kind: h.kind, hint: h.hint });
  }
  return findings;
}

// The secret is the last capture group when the rule has one (earlier groups hold context such as a name); every
// rule ends its match with the secret, so the secret's offset is the match's end minus its length.
function lastGroup(m: RegExpMatchArray): string {
  return m.length > 1 ? (m[m.length - 1] ?? m[0]) : m[0];
}

function lineIndex(content: string): (index: number) => number {
  const breaks: number[] = [];
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) breaks.push(i);
  return (index) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((breaks[mid] ?? Infinity) < index) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

/**
 * The refusal for a write that carries secret-looking content: where and what kind, never the value, and what to
 * do next. Lists at most 20 findings.
 */
export function secretsRefusal(findings: readonly Finding[]): string {
  const shown = findings.slice(0, 20).map((f) => {
    const hint = f.hint === undefined ? '' : `, starts "${f.hint}"`;
    return `"${f.path}" line ${f.line} (${SECRET_KIND_LABELS[f.kind]}${hint})`;
  });
  const more = findings.length > 20 ? `; and ${findings.length - 20} more` : '';
  return (
    `Possible secrets in the content: ${shown.join('; ')}${more}. Nothing was written: the whole change was refused. ` +
    'Remove the secret and have the code read it at run time (an environment variable or a secret store). ' +
    'If it is test data, replace it with an obvious placeholder such as "<token>" or "${TOKEN}".'
  );
}
