// Ref-name rules: git check-ref-format's, plus GitHub's (no 40-hex names, no `refs/` inside the short name).

/** True when `name` (fully qualified, e.g. `refs/heads/x`) is a ref name GitHub would accept. */
export function validRefName(name: string): boolean {
  if (!name.startsWith('refs/')) return false;
  const parts = name.split('/');
  if (parts.length < 3) return false;
  if (name.endsWith('/') || name.includes('//') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('@{') || name === '@' || name.includes('\\')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[]/.test(name)) return false;
  for (const part of parts) {
    if (part === '' || part.startsWith('.') || part.endsWith('.lock')) return false;
  }
  const short = parts.slice(2).join('/');
  if (/^[0-9a-fA-F]{40}$/.test(short) || short.startsWith('refs/')) return false;
  return true;
}

/** True when a caller-supplied short ref (branch, tag, `heads/x`) is safe to hand to git as a name. */
export function plausibleRef(ref: string): boolean {
  return (
    ref.length > 0 && !ref.startsWith('-') && validRefName(`refs/heads/${ref}`.replace(/^refs\/heads\/refs\//, 'refs/'))
  );
}
