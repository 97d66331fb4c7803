import { html, type Html } from '../escape.js';

/** What the form says above itself: nothing, a wrong token, or a source that must wait after too many wrong ones. */
export type SignInNotice = { kind: 'none' } | { kind: 'wrong' } | { kind: 'wait'; seconds: number };

function noticeOf(n: SignInNotice): Html | undefined {
  switch (n.kind) {
    case 'none':
      return undefined;
    case 'wrong':
      return html`<p class="notice bad" role="alert">Sign-in failed: that is not the ops token.</p>`;
    case 'wait':
      // The token was not checked: a right one sent now waits like a wrong one (a guesser learns nothing).
      return html`<p class="notice bad" role="alert">Too many wrong ops tokens from this address. Try again in ${String(n.seconds)} s; the token was not checked.</p>`;
    default: {
      const never: never = n;
      throw new Error(`unhandled sign-in notice ${String(never)}`);
    }
  }
}

/** The sign-in form: the ops token only (agent keys are never accepted here). */
export function signInPage(csrf: string, notice: SignInNotice): Html {
  return html`<h1>Sign in</h1>
${noticeOf(notice)}
<form method="post" action="/ui/signin" class="signin">
<input type="hidden" name="csrf" value="${csrf}">
<label for="token">Ops token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Sign in</button>
<p class="muted">The ops token is the one <code>git-blinder serve</code> printed or read from <code>GIT_BLINDER_OPS_TOKEN</code> or <code>--ops-token-file</code>. Agent keys do not open this page.</p>
</form>`;
}
