/** Cookie names of the web page; both are HttpOnly, SameSite=Strict and scoped to /ui. */
export const SESSION_COOKIE = 'gb_ui_session';
export const PRE_COOKIE = 'gb_ui_pre';

/** The value of one cookie in a Cookie header; a name sent twice counts as absent (a planted duplicate never wins). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const found = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  if (found.length !== 1) return undefined;
  const v = found[0] ?? '';
  return /^[A-Za-z0-9_-]{1,128}$/.test(v) ? v : undefined;
}

/** A Set-Cookie value; maxAge 0 clears it. `secure` follows the connection the browser used. */
export function setCookie(name: string, value: string, o: { maxAgeSeconds: number; secure: boolean }): string {
  return [
    `${name}=${value}`,
    'Path=/ui',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${o.maxAgeSeconds}`,
    ...(o.secure ? ['Secure'] : []),
  ].join('; ');
}
